// Typed checks of one expression: runs the CEL type checker with the runbook's types
// (expression-types.ts) and says what is wrong the way an author reads it — which part, what type
// it has, what to write instead. Conditions must give bool and foreach a list; `dyn` (a type that
// cannot be known before the run) always passes.
import type { ASTNode } from '@marcbachmann/cel-js';
import { celMessage, parseBounded } from './expressions';
import type { RunbookTypes, TypedVariables } from './expression-types';
import { patternProblem } from './patterns';
import { suggestionHint } from './suggest';

export type TypedMode = 'template' | 'condition' | 'items';

export interface TypeProblem {
  rule: 'expression-type' | 'condition-type';
  message: string;
  hint: string;
}

export type TypedCheck = { ok: true; type: string } | { ok: false; problem: TypeProblem };

/** A CEL type as authors know the data: object types are maps of JSON. */
export function typeLabel(type: string): string {
  return type.replace(/tideline\.[A-Za-z0-9_.]+/g, 'map').replace(/^list<dyn>$/, 'list');
}

interface CelCheckError {
  code?: string;
  message: string;
  node?: ASTNode;
}

function describeError(expression: string, error: CelCheckError, types: RunbookTypes): TypeProblem {
  const node = error.node;
  const part = node ? expression.slice(node.start, node.end) : expression;
  const summary = celMessage(error.message.split('\n')[0] ?? error.message);
  if (error.code === 'no_such_key' && node && (node.op === '.' || node.op === '[]')) {
    const left = node.args[0] as ASTNode & { checkedType?: { name: string } };
    const field = summary.replace(/^No such key: /, '');
    const known = types.fieldsOf(left.checkedType?.name ?? '');
    return {
      rule: 'expression-type',
      message: `\`${part}\`: \`${expression.slice(left.start, left.end)}\` has no field \`${field}\``,
      hint: suggestionHint(field, known, 'fields'),
    };
  }
  if (error.code === 'cannot_index_type' && node && (node.op === '.' || node.op === '[]')) {
    const left = node.args[0] as ASTNode & { checkedType?: { name: string } };
    const type = typeLabel(left.checkedType?.name ?? 'value');
    return {
      rule: 'expression-type',
      message: `\`${part}\`: \`${expression.slice(left.start, left.end)}\` is ${article(type)} ${type}, which has no fields`,
      hint: 'fields and indexes can be read from maps and lists only',
    };
  }
  if (error.code === 'no_such_overload' || error.code === 'no_matching_overload') {
    return {
      rule: 'expression-type',
      message: `\`${part}\`: ${typeLabel(summary.replace(/^no such overload: /, 'cannot apply '))}`,
      hint: 'CEL does not mix types: compare like with like, or convert with int(…), double(…) or string(…)',
    };
  }
  return {
    rule: 'expression-type',
    message: `\`${part}\`: ${typeLabel(summary)}`,
    hint: 'check the types of the values this expression reads',
  };
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function conditionHint(expression: string, type: string): string {
  if (type === 'string') return `compare it, e.g. ${expression} == 'yes'`;
  if (type === 'int' || type === 'double') return `compare it, e.g. ${expression} > 0`;
  if (type.startsWith('list') || type.startsWith('map') || type.startsWith('tideline.'))
    return `test its size, e.g. size(${expression}) > 0`;
  return 'a condition must give true or false';
}

/** A `matches('…')` whose literal pattern RE2 cannot compile, found before the run instead of in it. */
function literalPatternProblem(expression: string, ast: ASTNode): TypeProblem | undefined {
  const stack: unknown[] = [ast];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (Array.isArray(value)) stack.push(...(value as unknown[]));
    else if (typeof value === 'object' && value !== null && 'op' in value && 'args' in value) {
      const node = value as ASTNode;
      if (node.op === 'value' || node.op === 'id') continue;
      stack.push(node.args);
      if (node.op !== 'rcall' || !Array.isArray(node.args)) continue;
      // `x.matches(p)` is renamed for RE2 after parsing: ['matches…', receiver, [pattern]].
      const [name, , callArgs] = node.args as unknown[];
      const pattern = Array.isArray(callArgs) ? (callArgs[0] as ASTNode | undefined) : undefined;
      if (!String(name).startsWith('matches') || pattern?.op !== 'value') continue;
      if (typeof pattern.args !== 'string') continue;
      const problem = patternProblem(pattern.args);
      if (problem === undefined) continue;
      return {
        rule: 'expression-type',
        message: `\`${expression.slice(node.start, node.end)}\`: the pattern is ${problem}`,
        hint: 'patterns are RE2 (linear time): no lookaround or backreferences, e.g. ^[a-z][a-z0-9-]{2,62}$',
      };
    }
  }
  return undefined;
}

/** Type-checks an expression in a scope; reports a type mismatch, a non-boolean condition or a non-list foreach. */
export function typedCheck(
  expression: string,
  mode: TypedMode,
  types: RunbookTypes,
  variables: TypedVariables,
): TypedCheck {
  let parsed: ReturnType<typeof parseBounded>;
  let checked: ReturnType<ReturnType<typeof parseBounded>['check']>;
  try {
    parsed = parseBounded(types.environment(variables), expression);
    checked = parsed.check();
  } catch {
    // Syntax and limits are reported by the untyped check already.
    return { ok: true, type: 'dyn' };
  }
  if (!checked.valid) {
    const error = (checked.error ?? { message: 'type error' }) as CelCheckError;
    return { ok: false, problem: describeError(expression, error, types) };
  }
  const badPattern = literalPatternProblem(expression, parsed.ast);
  if (badPattern) return { ok: false, problem: badPattern };
  const type = checked.type ?? 'dyn';
  if (mode === 'condition' && type !== 'bool' && type !== 'dyn') {
    return {
      ok: false,
      problem: {
        rule: 'condition-type',
        message: `\`${expression}\` gives ${typeLabel(type)}, but a condition must be true or false`,
        hint: conditionHint(expression, type),
      },
    };
  }
  if (mode === 'items' && type !== 'dyn' && type !== 'list' && !type.startsWith('list<')) {
    return {
      ok: false,
      problem: {
        rule: 'condition-type',
        message: `\`${expression}\` gives ${typeLabel(type)}, but foreach needs a list`,
        hint:
          type === 'string'
            ? `split text into a list, e.g. ${expression}.split(','), or declare the input as type: list`
            : 'give a list: an input of type list, a list answer such as service.list, or [a, b]',
      },
    };
  }
  return { ok: true, type };
}
