// Templates: `${{ expr }}` inside runbook values, holding CEL. A string that is exactly one
// template keeps the expression's type (number, list, map, bool); templates embedded in text are
// stringified. Pure: the interpreter resolves templates inside Temporal's workflow sandbox.
import type { JsonValue } from './expressions';
import { ExpressionError, checkSyntax, evaluateExpression } from './expressions';
import { parseDuration } from './durations';
import type { ExpressionReference } from './expression-references';
import { expressionReferences } from './expression-references';

const OPEN = '${{';
const CLOSE = '}}';

export type TemplatePart =
  { kind: 'text'; text: string } | { kind: 'expression'; expression: string; start: number; end: number };

export interface ParsedTemplate {
  parts: TemplatePart[];
  /** The string is exactly one `${{ … }}`, so its value keeps the expression's type. */
  whole: boolean;
}

function parses(expression: string): boolean {
  try {
    checkSyntax(expression);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds where a template that opens at `open` closes. CEL map literals contain `}}` too, so the
 * first `}}` after which the expression parses wins; if none parses, the first `}}` does (and the
 * syntax error is reported for that text).
 */
function findClose(text: string, open: number): number {
  const from = open + OPEN.length;
  let first = -1;
  for (let at = text.indexOf(CLOSE, from); at !== -1; at = text.indexOf(CLOSE, at + 1)) {
    if (first === -1) first = at;
    if (parses(text.slice(from, at).trim())) return at;
  }
  return first;
}

/** Splits a string into text and expressions; throws ExpressionError for an unclosed `${{`. */
export function parseTemplate(text: string): ParsedTemplate {
  const parts: TemplatePart[] = [];
  let cursor = 0;
  for (let open = text.indexOf(OPEN); open !== -1; open = text.indexOf(OPEN, cursor)) {
    const close = findClose(text, open);
    if (close === -1)
      throw new ExpressionError(`\`${text}\` opens \`${OPEN}\` without a closing \`${CLOSE}\``, text);
    if (open > cursor) parts.push({ kind: 'text', text: text.slice(cursor, open) });
    const expression = text.slice(open + OPEN.length, close).trim();
    if (expression === '') throw new ExpressionError(`\`${text}\` has an empty \`${OPEN} ${CLOSE}\``, text);
    parts.push({ kind: 'expression', expression, start: open, end: close + CLOSE.length });
    cursor = close + CLOSE.length;
  }
  if (cursor < text.length) parts.push({ kind: 'text', text: text.slice(cursor) });
  const only = parts[0];
  const whole =
    parts.length === 1 && only?.kind === 'expression' && only.start === 0 && only.end === text.length;
  return { parts, whole };
}

/** True when the string holds at least one `${{`. */
export function hasTemplate(value: unknown): value is string {
  return typeof value === 'string' && value.includes(OPEN);
}

/** True when the string is exactly one `${{ … }}`. */
export function isWholeTemplate(value: unknown): value is string {
  if (!hasTemplate(value)) return false;
  try {
    return parseTemplate(value).whole;
  } catch {
    return false;
  }
}

/** How an embedded value reads inside text: strings as they are, everything else as JSON. */
export function stringifyValue(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  return JSON.stringify(value);
}

/** Resolves one string: a whole template keeps its type, embedded ones become text. */
export function resolveTemplateString(text: string, scope: Record<string, unknown>): JsonValue {
  if (!text.includes(OPEN)) return text;
  const { parts, whole } = parseTemplate(text);
  if (whole && parts[0]?.kind === 'expression') return evaluateExpression(parts[0].expression, scope);
  return parts
    .map((part) =>
      part.kind === 'text' ? part.text : stringifyValue(evaluateExpression(part.expression, scope)),
    )
    .join('');
}

/** Resolves every template in a value, walking nested lists and maps (keys are never templated). */
export function resolveTemplates(value: unknown, scope: Record<string, unknown>): JsonValue {
  if (typeof value === 'string') return resolveTemplateString(value, scope);
  if (Array.isArray(value)) return value.map((inner) => resolveTemplates(inner, scope));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (inner !== undefined) out[key] = resolveTemplates(inner, scope);
    }
    return out;
  }
  if (value === undefined) return null;
  return value as JsonValue;
}

/**
 * The CEL of a condition field (`if`, `until`, `failIf`, `assert`, `foreach`): written either as
 * `${{ expr }}` or as bare CEL; booleans are allowed for `if`. Throws ExpressionError for text
 * with embedded templates, which would be a string, never a condition.
 */
export function conditionExpression(raw: string | boolean): string {
  if (typeof raw === 'boolean') return String(raw);
  if (!raw.includes(OPEN)) return raw.trim();
  const { parts, whole } = parseTemplate(raw);
  if (whole && parts[0]?.kind === 'expression') return parts[0].expression;
  throw new ExpressionError(
    `\`${raw}\` mixes text and \`${OPEN} ${CLOSE}\`; write one expression, either bare or as \`${OPEN} expr ${CLOSE}\``,
    raw,
  );
}

/**
 * A duration as the normalised definition holds it: milliseconds, or a template resolved at run
 * time to milliseconds (a number) or a duration string such as `5m`.
 */
export function resolveDurationMs(value: number | string, scope: Record<string, unknown>): number {
  if (typeof value === 'number') return value;
  const resolved = resolveTemplateString(value, scope);
  if (typeof resolved === 'number' && Number.isFinite(resolved) && resolved >= 0) return resolved;
  if (typeof resolved === 'string') return parseDuration(resolved);
  throw new ExpressionError(
    `\`${value}\` must give a duration such as 5m or milliseconds, got ${JSON.stringify(resolved)}`,
    value,
  );
}

/** A whole number as the normalised definition holds it (foreach `concurrency`): literal or template. */
export function resolveCount(value: number | string, scope: Record<string, unknown>): number {
  const resolved = typeof value === 'number' ? value : resolveTemplateString(value, scope);
  if (typeof resolved === 'number' && Number.isInteger(resolved) && resolved >= 1) return resolved;
  throw new ExpressionError(
    `\`${String(value)}\` must give a whole number of at least 1, got ${JSON.stringify(resolved)}`,
    String(value),
  );
}

export interface FoundExpression {
  /** Where the string holding the expression sits, relative to the walked value. */
  path: (string | number)[];
  expression: string;
  /** The string is exactly this one template. */
  whole: boolean;
}

export interface TemplateSyntaxProblem {
  path: (string | number)[];
  message: string;
}

/** Every `${{ … }}` in a value, with its path; unclosed or empty templates are listed as problems. */
export function findTemplates(
  value: unknown,
  basePath: (string | number)[] = [],
): { expressions: FoundExpression[]; problems: TemplateSyntaxProblem[] } {
  const expressions: FoundExpression[] = [];
  const problems: TemplateSyntaxProblem[] = [];
  const walk = (inner: unknown, path: (string | number)[]): void => {
    if (typeof inner === 'string') {
      if (!inner.includes(OPEN)) return;
      try {
        const { parts, whole } = parseTemplate(inner);
        for (const part of parts)
          if (part.kind === 'expression') expressions.push({ path, expression: part.expression, whole });
      } catch (error) {
        problems.push({ path, message: error instanceof Error ? error.message : String(error) });
      }
    } else if (Array.isArray(inner)) inner.forEach((item, index) => walk(item, [...path, index]));
    else if (inner !== null && typeof inner === 'object') {
      for (const [key, item] of Object.entries(inner)) walk(item, [...path, key]);
    }
  };
  walk(value, basePath);
  return { expressions, problems };
}

export interface ReferencedExpression extends FoundExpression {
  /** The free variables it reads (`inputs.x`, `steps.<id>.output…`, `result`, loop variables). */
  references: ExpressionReference[];
}

/**
 * Every expression in a value with what it reads, e.g. to learn which steps a `with` depends on.
 * Throws ExpressionError for a template or expression that does not parse.
 */
export function listReferences(value: unknown, basePath: (string | number)[] = []): ReferencedExpression[] {
  const { expressions, problems } = findTemplates(value, basePath);
  const [problem] = problems;
  if (problem) throw new ExpressionError(problem.message, String(problem.path.join('.')));
  return expressions.map((found) => ({ ...found, references: expressionReferences(found.expression) }));
}

/** The ids of the steps whose output a value reads. */
export function referencedStepIds(value: unknown): string[] {
  const ids = new Set<string>();
  for (const { references } of listReferences(value)) {
    for (const ref of references) if (ref.root === 'steps' && ref.path[0] !== undefined) ids.add(ref.path[0]);
  }
  return [...ids];
}
