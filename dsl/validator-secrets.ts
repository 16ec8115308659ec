// Secret flows: a secret (a secret input, the `initial_password` a create or fork answers, any
// password field, a child runbook's secret output) must not reach a non-secret output or a message
// (fail, assert, approve), because those are printed and kept in plain text in history.
import { SECRET_FIELD_NAME as SECRET_NAME } from '../cloud/secret-fields';
import { ACTION_CATALOGUE } from './actions';
import type { RunbookDefinition } from './definition';
import type { ExpressionReference } from './expression-references';
import { expressionReferences } from './expression-references';
import type { ProblemPath, RunbookProblem } from './problems';
import type { Runbook, RunbookStep } from './schema';
import { writtenKind } from './step-kinds/runtime-table';
import { languageOf } from './step-kinds/table';
import type { PlacedStep } from './step-tree';
import { findTemplates } from './templates';

export interface SecretContext {
  runbook: Runbook;
  steps: ReadonlyMap<string, PlacedStep>;
  childRunbook: (step: RunbookStep) => RunbookDefinition | undefined;
}

/** Describes the secret a reference reads, or undefined when it reads none. */
function secretRead(ref: ExpressionReference, ctx: SecretContext): string | undefined {
  const dotted = [ref.root, ...ref.path].join('.');
  if (ref.path.some((part) => SECRET_NAME.test(part))) return `\`${dotted}\``;
  const inputs = ctx.runbook.inputs ?? {};
  if (ref.root === 'inputs') {
    const name = ref.path[0];
    if (name === undefined)
      return Object.values(inputs).some((spec) => spec.secret)
        ? '`inputs`, which holds secret inputs'
        : undefined;
    return inputs[name]?.secret ? `the secret input \`${name}\`` : undefined;
  }
  if (ref.root !== 'steps') return undefined;
  const [id, field, first] = ref.path;
  const step = id === undefined ? undefined : ctx.steps.get(id)?.step;
  if (!step || (field !== undefined && field !== 'output')) return undefined;
  const output = languageOf(writtenKind(step)).output;
  if ('answerOf' in output) {
    const secrets = ACTION_CATALOGUE[output.answerOf(step)].secretOutputFields;
    if (secrets.length > 0 && (first === undefined || secrets.includes(first))) {
      return first === undefined ? `\`${dotted}\`, which includes ${secrets.join(', ')}` : `\`${dotted}\``;
    }
  }
  if ('childOutputs' in output) {
    const child = ctx.childRunbook(output.childOutputs(step));
    const secretOutputs = Object.entries(child?.outputs ?? {})
      .filter(([, spec]) => spec.secret)
      .map(([name]) => name);
    if (first === undefined ? secretOutputs.length > 0 : secretOutputs.includes(first))
      return `the secret output \`${dotted}\``;
  }
  return undefined;
}

function leaks(
  value: unknown,
  path: ProblemPath,
  where: string,
  hint: string,
  ctx: SecretContext,
): RunbookProblem[] {
  const problems: RunbookProblem[] = [];
  for (const found of findTemplates(value, path).expressions) {
    let references: ExpressionReference[];
    try {
      references = expressionReferences(found.expression);
    } catch {
      continue; // reported by the expression checks
    }
    for (const ref of references) {
      const secret = secretRead(ref, ctx);
      if (secret)
        problems.push({
          rule: 'secret-leak',
          path: found.path,
          message: `${where} is not secret but reads ${secret}`,
          hint,
        });
    }
  }
  return problems;
}

/** Every place a secret reaches something printed in plain text. */
export function secretLeakProblems(ctx: SecretContext): RunbookProblem[] {
  const problems: RunbookProblem[] = [];
  for (const [name, spec] of Object.entries(ctx.runbook.outputs ?? {})) {
    if (typeof spec !== 'string' && spec.secret) continue;
    const path = typeof spec === 'string' ? ['outputs', name] : ['outputs', name, 'value'];
    const value = typeof spec === 'string' ? spec : spec.value;
    problems.push(
      ...leaks(
        value,
        path,
        `output \`${name}\``,
        `mark it secret: ${name}: { value: "...", secret: true }`,
        ctx,
      ),
    );
  }
  const messageHint = 'messages are printed and kept in history; leave the secret out';
  for (const { step, kind, path } of ctx.steps.values()) {
    for (const message of languageOf(kind).messages(step, path))
      problems.push(...leaks(message.value, message.path, message.what, messageHint, ctx));
  }
  return problems;
}
