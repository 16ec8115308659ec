// Checks that declared inputs make sense: type-specific settings on the right types, a pattern
// that compiles, bounds in order, a default that satisfies its own rules, no secret defaults.
import type { InputDefinition } from './definition';
import { isDuration } from './durations';
import { checkInputValue } from './inputs';
import { patternProblem } from './patterns';
import type { RunbookProblem } from './problems';
import type { InputSpec } from './schema';

const BOUNDED = new Set(['integer', 'number', 'string', 'list', 'duration']);

/** A definition for checking the default; bounds that are the wrong type are left out (reported separately). */
function asDefinition(spec: InputSpec): InputDefinition {
  const out: InputDefinition = { type: spec.type, required: false, secret: false };
  if (spec.values) out.values = spec.values;
  if (spec.pattern !== undefined && compiles(spec.pattern)) out.pattern = spec.pattern;
  for (const side of ['min', 'max'] as const) {
    const bound = spec[side];
    if (typeof bound === 'number' && spec.type !== 'duration') out[side] = bound;
  }
  return out;
}

function compiles(pattern: string): boolean {
  return patternProblem(pattern) === undefined;
}

const withArticle = (type: string) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;

export function inputSpecProblems(name: string, spec: InputSpec): RunbookProblem[] {
  const at = (field: string) => ['inputs', name, field];
  const problems: RunbookProblem[] = [];
  const add = (field: string, message: string, hint?: string, rule: RunbookProblem['rule'] = 'input-spec') =>
    problems.push(
      hint === undefined ? { rule, path: at(field), message } : { rule, path: at(field), message, hint },
    );

  if (spec.type === 'enum' && spec.values === undefined)
    add('type', `enum input \`${name}\` needs \`values\``, 'list the allowed values: values: [a, b]');
  if (spec.type !== 'enum' && spec.values !== undefined)
    add('values', `\`values\` applies to enum inputs only; \`${name}\` is ${withArticle(spec.type)}`);
  if (spec.pattern !== undefined) {
    if (spec.type !== 'string')
      add('pattern', `\`pattern\` applies to string inputs only; \`${name}\` is ${withArticle(spec.type)}`);
    else {
      const problem = patternProblem(spec.pattern);
      if (problem !== undefined)
        add(
          'pattern',
          `the pattern of \`${name}\` is ${problem}`,
          'patterns are RE2 (linear time): no lookaround or backreferences, e.g. ^[a-z][a-z0-9-]{2,62}$',
        );
    }
  }
  for (const side of ['min', 'max'] as const) {
    const bound = spec[side];
    if (bound === undefined) continue;
    if (!BOUNDED.has(spec.type)) add(side, `\`${side}\` does not apply to ${spec.type} inputs`);
    else if (spec.type === 'duration' && !(typeof bound === 'string' && isDuration(bound)))
      add(side, `\`${side}\` of a duration input must be a duration such as 5m`, undefined, 'duration');
    else if (spec.type !== 'duration' && typeof bound !== 'number')
      add(side, `\`${side}\` of ${withArticle(spec.type)} input must be a number`);
  }
  if (typeof spec.min === 'number' && typeof spec.max === 'number' && spec.min > spec.max)
    add('min', `\`min\` is greater than \`max\``);
  if (spec.default !== undefined) {
    if (spec.required === true)
      add(
        'required',
        `input \`${name}\` is required, so its default is never used`,
        'remove `required: true` or the default',
      );
    if (spec.secret)
      add(
        'default',
        `secret input \`${name}\` has a default written in the runbook`,
        'pass secrets at run time instead',
        'secret-leak',
      );
    const checked = checkInputValue(asDefinition(spec), spec.default);
    if ('error' in checked) add('default', `the default of \`${name}\` ${checked.error}`);
  }
  return problems;
}
