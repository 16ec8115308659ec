// Expression checks, in execution order: every `${{ … }}` and condition must parse and type-check,
// and may only read what exists at that point — declared inputs, steps that already completed
// (not later ones, not a parallel sibling branch, not inside another foreach), `result` inside a
// wait's conditions, and the variable of an enclosing foreach. Expressions whose references are
// sound are then type-checked with the runbook's types (validator-types.ts).
import { oneSidedDialectValue } from './dialect-values';
import type { ActionName } from '../cloud/operations';
import { checkOutputPath } from './actions';
import type { RunbookDefinition } from './definition';
import type { ExpressionReference } from './expression-references';
import { expressionReferences } from './expression-references';
import { checkExpression } from './expressions';
import { RunbookTypes, actionCelType, elementType } from './expression-types';
import type { ProblemPath, RunbookProblem } from './problems';
import type { Runbook, RunbookStep, Step } from './schema';
import { completedIds, heldSteps } from './step-tree';
import { writtenKind } from './step-kinds/runtime-table';
import { languageOf } from './step-kinds/table';
import type { Frame, PlacedStep } from './step-tree';
import { closestName, suggestionHint } from './suggest';
import { conditionExpression, findTemplates } from './templates';
import { typedCheck } from './validator-types';

export interface ExpressionContext {
  runbook: Runbook;
  /** The top-level steps with their document paths. */
  top: { step: Step; path: ProblemPath }[];
  /** Every step by id (first declaration). */
  steps: ReadonlyMap<string, PlacedStep>;
  /** Parallel branch ids, which are not steps. */
  branchIds: ReadonlySet<string>;
  /** Ids of steps the schema rejected: references to them are not reported again. */
  unparsedIds: ReadonlySet<string>;
  childRunbook: (step: RunbookStep) => RunbookDefinition | undefined;
}

/**
 * The step ids visible at a point: a sequence's own completed ids over the enclosing ones. Layers
 * instead of copies, so checking n steps is linear (a copy per step made 20,000 steps quadratic).
 */
class VisibleIds {
  private readonly own = new Set<string>();
  constructor(private readonly outer?: VisibleIds) {}
  add(id: string): void {
    this.own.add(id);
  }
  has(id: string): boolean {
    return this.own.has(id) || (this.outer?.has(id) ?? false);
  }
}

interface Scope {
  visible: VisibleIds;
  frames: Frame[];
  /** The step whose fields are being checked (its own output is not readable yet). */
  self?: string;
  /** Inside a wait's until/failIf: the action whose answer `result` holds. */
  resultAction?: ActionName;
  /** The item type of each enclosing foreach's variable. */
  loopTypes: Record<string, string>;
}

type Mode = 'template' | 'condition' | 'items';

const ROOTS = ['inputs', 'steps'];

function loopVariables(frames: Frame[]): string[] {
  return frames.flatMap((frame) => (frame.type === 'foreach' ? [frame.variable] : []));
}

export class ExpressionChecker {
  readonly problems: RunbookProblem[] = [];
  private readonly types: RunbookTypes;

  constructor(private readonly ctx: ExpressionContext) {
    this.types = new RunbookTypes(ctx.runbook, ctx.steps, ctx.childRunbook);
  }

  /** Checks the whole runbook: steps in order, then outputs (which see every completed step). */
  run(): void {
    const visible = this.sequence(this.ctx.top, { visible: new VisibleIds(), frames: [], loopTypes: {} });
    for (const [name, spec] of Object.entries(this.ctx.runbook.outputs ?? {})) {
      const path = typeof spec === 'string' ? ['outputs', name] : ['outputs', name, 'value'];
      const value = typeof spec === 'string' ? spec : spec.value;
      this.templates(value, path, { visible, frames: [], loopTypes: {} });
    }
  }

  private sequence(steps: { step: Step; path: ProblemPath }[], scope: Scope): VisibleIds {
    const visible = new VisibleIds(scope.visible);
    for (const { step, path } of steps) {
      // The step's own fields and inner sequences are checked before its ids are added below.
      const own: Scope = {
        visible,
        frames: scope.frames,
        self: step.id,
        loopTypes: scope.loopTypes,
      };
      const items = this.stepFields(step, path, own);
      const held = heldSteps(step, path);
      for (const branch of held.branches) {
        this.sequence(branch.steps, {
          visible: own.visible,
          frames: [...scope.frames, branch.frame],
          loopTypes: scope.loopTypes,
        });
      }
      if (held.body?.frame.type === 'foreach') {
        const { frame } = held.body;
        this.sequence(held.body.steps, {
          visible: own.visible,
          frames: [...scope.frames, frame],
          loopTypes: { ...scope.loopTypes, [frame.variable]: elementType(items) },
        });
      }
      for (const id of completedIds(step)) visible.add(id);
      const { compensation } = held;
      this.sequence(compensation.steps, {
        visible,
        frames: [...scope.frames, compensation.frame],
        loopTypes: scope.loopTypes,
      });
    }
    return visible;
  }

  /** Checks a step's own expressions; gives the type of a foreach's list (else `dyn`). */
  private stepFields(step: Step, path: ProblemPath, scope: Scope): string {
    if (step.if !== undefined) this.condition(step.if, [...path, 'if'], scope, 'condition');
    if (step.timeout !== undefined) this.templates(step.timeout, [...path, 'timeout'], scope);
    return languageOf(writtenKind(step)).checkExpressions(step, path, {
      templates: (value, at) => this.templates(value, at, scope),
      expression: (raw, at, mode, resultOf) =>
        this.condition(raw, at, resultOf === undefined ? scope : { ...scope, resultAction: resultOf }, mode),
      actionType: actionCelType,
    });
  }

  private templates(value: unknown, path: ProblemPath, scope: Scope): void {
    const found = findTemplates(value, path);
    for (const bad of found.problems)
      this.problems.push({ rule: 'expression', path: bad.path, message: bad.message });
    for (const { expression, path: at } of found.expressions)
      this.expression(expression, at, scope, 'template');
  }

  /** Checks a condition field; gives the expression's type (`dyn` when unknown or broken). */
  private condition(raw: string | boolean, path: ProblemPath, scope: Scope, mode: Mode): string {
    let expression: string;
    try {
      expression = conditionExpression(raw);
    } catch (error) {
      this.problems.push({ rule: 'expression', path, message: (error as Error).message });
      return 'dyn';
    }
    return this.expression(expression, path, scope, mode);
  }

  private expression(expression: string, path: ProblemPath, scope: Scope, mode: Mode): string {
    const checked = checkExpression(expression);
    if (!checked.ok) {
      this.problems.push(
        checked.limit
          ? {
              rule: 'expression-limit',
              path,
              message: checked.message,
              hint: 'split the work: compute parts in earlier steps, or loop with foreach',
            }
          : {
              rule: 'expression',
              path,
              message: checked.message,
              hint: "expressions are CEL, e.g. result.status == 'READY' or size(steps.list.output) > 0",
            },
      );
      return 'dyn';
    }
    if (this.hyphenatedStepReference(expression, path)) return 'dyn';
    const oneSided = oneSidedDialectValue(expression);
    if (oneSided !== undefined) {
      const all = [oneSided.named, ...oneSided.missing].map((value) => `'${value}'`).join(', ');
      this.problems.push({
        rule: 'dialect-value',
        path,
        message: `\`${oneSided.named}\` is named ${oneSided.missing.map((v) => `\`${v}\``).join(' or ')} by the other dialect of the Cloud API, so this expression misses those services there`,
        hint: `compare with every name, e.g. s.service_type in [${all}]`,
      });
    }
    const before = this.problems.length;
    const references = expressionReferences(expression);
    for (const reference of references) this.reference(reference, expression, path, scope);
    const unknownStep = references.some(
      (ref) => ref.root === 'steps' && ref.path[0] !== undefined && !this.ctx.steps.has(ref.path[0]),
    );
    // Type-check only what refers to things that exist, so one mistake is reported once.
    if (this.problems.length === before && !unknownStep) {
      const variables = {
        loops: scope.loopTypes,
        ...(scope.resultAction ? { result: scope.resultAction } : {}),
      };
      const typed = typedCheck(expression, mode, this.types, variables);
      if (typed.ok) return typed.type;
      this.problems.push({ ...typed.problem, path });
      return 'dyn';
    }
    if (mode === 'condition' && !['bool', 'dyn'].includes(checked.type)) {
      this.problems.push({
        rule: 'condition-type',
        path,
        message: `\`${expression}\` gives ${checked.type}, but a condition must be true or false`,
      });
    }
    if (mode === 'items' && !['list', 'dyn'].includes(checked.type) && !checked.type.startsWith('list')) {
      this.problems.push({
        rule: 'condition-type',
        path,
        message: `\`${expression}\` gives ${checked.type}, but foreach needs a list`,
      });
    }
    return 'dyn';
  }

  /** `steps.my-step.output` parses as a subtraction; say so instead of two confusing problems. */
  private hyphenatedStepReference(expression: string, path: ProblemPath): boolean {
    for (const match of expression.matchAll(/steps\.([a-z][a-z0-9_]*(?:-[a-z0-9_]+)+)/g)) {
      const id = match[1] ?? '';
      if (!this.ctx.steps.has(id)) continue;
      this.problems.push({
        rule: 'reference',
        path,
        message: `\`steps.${id}\` reads as a subtraction in CEL, because the id contains \`-\``,
        hint: `write steps['${id}'].output, or use _ in step ids`,
      });
      return true;
    }
    return false;
  }

  private reference(ref: ExpressionReference, expression: string, path: ProblemPath, scope: Scope): void {
    const report = (rule: RunbookProblem['rule'], message: string, hint?: string) =>
      this.problems.push(hint === undefined ? { rule, path, message } : { rule, path, message, hint });
    const loops = loopVariables(scope.frames);
    if (ref.root === 'inputs') {
      const name = ref.path[0];
      const inputs = Object.keys(this.ctx.runbook.inputs ?? {});
      if (name !== undefined && !inputs.includes(name)) {
        report(
          'unknown-input',
          `\`inputs.${name}\` is not a declared input`,
          suggestionHint(name, inputs, 'declared inputs'),
        );
      }
      return;
    }
    if (ref.root === 'steps') return this.stepReference(ref, path, scope);
    if (ref.root === 'result' && scope.resultAction !== undefined) {
      const mismatch = checkOutputPath(scope.resultAction, ref.path);
      if (mismatch) {
        report(
          'output-field',
          `\`${scope.resultAction}\` answers have no field \`${mismatch.field}\``,
          suggestionHint(mismatch.field, mismatch.known, 'fields'),
        );
      }
      return;
    }
    if (loops.includes(ref.root)) return;
    const known = [...ROOTS, ...(scope.resultAction ? ['result'] : []), ...loops];
    let hint = `known variables here: ${known.join(', ')}`;
    if (ref.root === 'result') hint = '`result` exists only in the `until` and `failIf` of a wait step';
    else if (ref.root === 'item' || ref.root === 'each')
      hint = 'a loop variable exists only inside its foreach steps';
    else {
      const close = closestName(ref.root, known);
      if (close) hint = `did you mean \`${close}\`? (${hint})`;
    }
    const context = expression.trim() === ref.root ? '' : ` (in \`${expression}\`)`;
    report('unknown-variable', `\`${ref.root}\` is not defined here${context}`, hint);
  }

  private stepReference(ref: ExpressionReference, path: ProblemPath, scope: Scope): void {
    const [id, field, ...rest] = ref.path;
    if (id === undefined) return;
    const report = (rule: RunbookProblem['rule'], message: string, hint?: string) =>
      this.problems.push(hint === undefined ? { rule, path, message } : { rule, path, message, hint });
    const target = this.ctx.steps.get(id);
    if (!target) {
      if (this.ctx.unparsedIds.has(id)) return;
      if (this.ctx.branchIds.has(id)) {
        report(
          'reference',
          `\`${id}\` is a parallel branch, not a step`,
          'read the output of a step inside the branch',
        );
        return;
      }
      report(
        'reference',
        `\`steps.${id}\` refers to no step`,
        suggestionHint(id, [...this.ctx.steps.keys()], 'step ids'),
      );
      return;
    }
    if (!scope.visible.has(id)) {
      report('reference', this.unreadableReason(id, target, scope), this.unreadableHint(id, target));
      return;
    }
    if (field === undefined) return;
    if (field === 'status') return;
    if (field !== 'output') {
      report(
        'reference',
        `\`steps.${id}.${field}\` does not exist`,
        `a step has steps.${id}.output (its result) and steps.${id}.status (done, failed or skipped)`,
      );
      return;
    }
    this.outputFields(id, target.step, rest, report);
  }

  private unreadableReason(id: string, target: PlacedStep, scope: Scope): string {
    if (id === scope.self) return `step \`${id}\` reads its own output, which does not exist yet`;
    const foreach = target.frames.find(
      (f) => f.type === 'foreach' && !scope.frames.some((g) => g.type === 'foreach' && g.id === f.id),
    );
    if (foreach?.type === 'foreach') return `\`${id}\` runs inside foreach \`${foreach.id}\`, once per item`;
    const compensation = target.frames.find((f) => f.type === 'compensate');
    if (compensation?.type === 'compensate')
      return `\`${id}\` is a compensation step of \`${compensation.owner}\`; its output is not readable here`;
    for (const frame of target.frames) {
      if (frame.type !== 'branch') continue;
      const mine = scope.frames.find((f) => f.type === 'branch' && f.parallel === frame.parallel);
      if (mine?.type === 'branch' && mine.branch !== frame.branch) {
        return `\`${id}\` runs in branch \`${frame.branch}\`, a parallel sibling of this branch (\`${mine.branch}\`)`;
      }
    }
    return `\`${id}\` runs later than this step, so its output does not exist yet`;
  }

  private unreadableHint(id: string, target: PlacedStep): string {
    const foreach = target.frames.find((f) => f.type === 'foreach');
    if (foreach?.type === 'foreach')
      return `read steps.${foreach.id}.output: one entry per item, each mapping step ids to outputs`;
    if (target.frames.some((f) => f.type === 'branch'))
      return 'read it after the parallel step, or move the steps into the same branch';
    return `move this step after \`${id}\`, or read something that already exists`;
  }

  private outputFields(
    id: string,
    step: Step,
    fields: string[],
    report: (rule: RunbookProblem['rule'], message: string, hint?: string) => void,
  ): void {
    if (fields.length === 0) return;
    const output = languageOf(writtenKind(step)).output;
    if ('answerOf' in output) {
      const action = output.answerOf(step);
      const mismatch = checkOutputPath(action, fields);
      if (!mismatch) return;
      if (mismatch.known.length === 0 && mismatch.index === 0) {
        report('output-field', `\`${action}\` answers without a body, so \`steps.${id}.output\` is null`);
        return;
      }
      report(
        'output-field',
        `\`${action}\` answers have no field \`${mismatch.field}\``,
        suggestionHint(mismatch.field, mismatch.known, 'fields'),
      );
      return;
    }
    if ('childOutputs' in output) {
      const child = this.ctx.childRunbook(output.childOutputs(step));
      const name = fields[0] ?? '';
      if (child && !(name in child.outputs)) {
        report(
          'output-field',
          `child runbook \`${child.name}\` has no output \`${name}\``,
          suggestionHint(name, Object.keys(child.outputs), 'outputs'),
        );
      }
    }
  }
}
