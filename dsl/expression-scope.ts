// What a piece of a runbook reads from its scope, and that scope cut down to it. Activity and
// child-workflow inputs are stored in the run's history, so they must carry only what their
// expressions reference — never the whole scope (a `service.list` answer over a fleet would be
// copied into every wait). The references come from expression-references.ts, the validator's
// own analysis. Pure and deterministic: used inside the workflow sandbox.
import type { StepDefinition } from './definition';
import { expressionReferences } from './expression-references';
import { definitionRuntime } from './step-kinds/runtime-table';
import { stepTree } from './step-tree';
import { findTemplates } from './templates';

/**
 * Per free variable, which of its top-level fields are read (`inputs.name` → `name`,
 * `steps.create.output` → `create`), or `'whole'` when the variable is read as a whole or through
 * a computed index.
 */
export type ScopeNeeds = Map<string, Set<string> | 'whole'>;

/** Adds what one bare CEL expression reads; throws ExpressionError when it does not parse. */
export function addExpressionNeeds(needs: ScopeNeeds, expression: string): ScopeNeeds {
  for (const reference of expressionReferences(expression)) {
    const current = needs.get(reference.root);
    const field = reference.path[0];
    if (current === 'whole') continue;
    if (field === undefined) needs.set(reference.root, 'whole');
    else if (current === undefined) needs.set(reference.root, new Set([field]));
    else current.add(field);
  }
  return needs;
}

/** Adds what every `${{ … }}` inside a value (walked through lists and maps) reads. */
export function addTemplateNeeds(needs: ScopeNeeds, value: unknown): ScopeNeeds {
  for (const found of findTemplates(value).expressions) addExpressionNeeds(needs, found.expression);
  return needs;
}

/** What bare CEL expressions read (e.g. a wait's `until` and `failIf`). */
export function expressionNeeds(expressions: Array<string | undefined>): ScopeNeeds {
  const needs: ScopeNeeds = new Map();
  for (const expression of expressions) if (expression !== undefined) addExpressionNeeds(needs, expression);
  return needs;
}

/** What one step reads itself (its nested steps are walked separately). */
function addOwnNeeds(needs: ScopeNeeds, step: StepDefinition): void {
  if (step.if !== undefined) addExpressionNeeds(needs, step.if);
  addTemplateNeeds(needs, step.timeoutMs);
  for (const read of definitionRuntime(step).reads(step)) {
    if ('template' in read) addTemplateNeeds(needs, read.template);
    else if (read.expression !== undefined) addExpressionNeeds(needs, read.expression);
  }
}

const stepListNeeds = new WeakMap<StepDefinition[], ScopeNeeds>();

/**
 * What a list of steps reads, nested steps and compensations included (cached per list: a
 * definition does not change during a run).
 */
export function stepsNeeds(steps: StepDefinition[]): ScopeNeeds {
  const cached = stepListNeeds.get(steps);
  if (cached) return cached;
  const needs: ScopeNeeds = new Map();
  for (const { step } of stepTree(steps)) addOwnNeeds(needs, step);
  stepListNeeds.set(steps, needs);
  return needs;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The variables cut down to what is needed: unread variables are left out, and of a map only the
 * fields read are kept. Variables the needs name but `variables` lacks (e.g. `result`, or a step
 * of the same loop body) are left out too; evaluating needs nothing else.
 */
export function narrowVariables<T>(variables: Record<string, T>, needs: ScopeNeeds): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [root, fields] of needs) {
    if (!Object.prototype.hasOwnProperty.call(variables, root)) continue;
    const value = variables[root] as T;
    if (fields === 'whole' || !isMap(value)) {
      out[root] = value;
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const field of fields) {
      if (Object.prototype.hasOwnProperty.call(value, field)) kept[field] = value[field];
    }
    out[root] = kept as T;
  }
  return out;
}
