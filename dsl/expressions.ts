// CEL evaluation over JSON data. Pure and deterministic: used by activities (wait conditions) and
// by the workflow interpreter inside Temporal's sandbox, so no I/O and no Node built-ins here.
//
// JSON has one number type; CEL has int and double and will not mix them (`x * 2` fails for a
// double x). Whole JSON numbers therefore enter CEL as ints and leave it as numbers again.
//
// One shared environment: variables not declared are `dyn` (runbook data is JSON of any shape) and
// list/map literals may mix types (`{'name': inputs.name, 'nodes': 1}`). The static validator
// type-checks with the same environment, so what passes validation also evaluates.
//
// Bounded: every expression passes expression-limits.ts (length, nesting, estimated work) before it
// is evaluated, and `matches()` uses RE2 (patterns.ts) instead of the backtracking RegExp.
import { Environment } from '@marcbachmann/cel-js';
import type { ASTNode, ParseResult } from '@marcbachmann/cel-js';
import type { ExpressionLimitCode } from './expression-limits';
import { expressionLimitProblem } from './expression-limits';
import { patternMatches } from './patterns';
import { readMemberPath } from './member-path';

/**
 * cel-js will not replace a built-in overload, so `x.matches(p)` is renamed to this function in
 * the syntax tree right after parsing; messages say `matches` again (`celMessage`).
 */
const RE2_MATCHES = 'matchesRE2';

function re2Matches(text: unknown, pattern: unknown): boolean {
  try {
    return patternMatches(String(pattern), String(text));
  } catch (error) {
    throw new Error(`matches(): ${errorMessage(error)}`);
  }
}

/** The environment every expression is parsed and evaluated in; the checker's types extend it. */
export const celEnvironment = new Environment({
  unlistedVariablesAreDyn: true,
  homogeneousAggregateLiterals: false,
}).registerFunction(`string.${RE2_MATCHES}(string): bool`, re2Matches);

/** Calls `visit` on every node of a syntax tree (literal values and identifiers are leaves). */
function forEachNode(ast: ASTNode, visit: (node: ASTNode) => void): void {
  const stack: unknown[] = [ast];
  for (let value = stack.pop(); value !== undefined; value = stack.pop()) {
    if (Array.isArray(value)) stack.push(...(value as unknown[]));
    else if (isNode(value)) {
      visit(value);
      if (value.op !== 'value' && value.op !== 'id') stack.push(value.args);
    }
  }
}

/** Renames `matches` calls to the RE2 function; parsing gives a fresh tree, so this is local. */
export function useRe2Matches(ast: ASTNode): ASTNode {
  forEachNode(ast, (node) => {
    if (node.op === 'rcall' && node.args[0] === 'matches') (node.args as unknown[])[0] = RE2_MATCHES;
  });
  return ast;
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** Parses in an environment, renames `matches` and enforces the limits; throws on any problem. */
export function parseBounded(env: Environment, expression: string): ParseResult {
  const tooLong = expressionLimitProblem(expression);
  if (tooLong) throw new ExpressionLimitError(expression, tooLong.code, tooLong.message);
  const parsed = env.parse(expression);
  const problem = expressionLimitProblem(expression, parsed.ast);
  if (problem) throw new ExpressionLimitError(expression, problem.code, problem.message);
  useRe2Matches(parsed.ast);
  return parsed;
}

/** Parsed expressions, by source text. Parsing is pure, so a cache is safe in the workflow sandbox. */
const parsedCache = new Map<string, ParseResult>();
const PARSED_CACHE_LIMIT = 500;

function parseCached(expression: string): ParseResult {
  const cached = parsedCache.get(expression);
  if (cached) return cached;
  const parsed = parseBounded(celEnvironment, expression);
  if (parsedCache.size >= PARSED_CACHE_LIMIT) parsedCache.clear();
  parsedCache.set(expression, parsed);
  return parsed;
}

/** The syntax tree of an expression; throws ExpressionError on a syntax error. */
export function parseExpression(expression: string): ASTNode {
  try {
    return parseCached(expression).ast;
  } catch (error) {
    if (error instanceof ExpressionLimitError) throw error;
    throw new ExpressionError(
      `cannot parse \`${expression}\`: ${firstLine(errorMessage(error))}`,
      expression,
    );
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export class ExpressionError extends Error {
  readonly code = 'EXPRESSION_ERROR';
  constructor(
    message: string,
    readonly expression: string,
  ) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** An expression over the limits of expression-limits.ts; `limit` is a stable code. */
export class ExpressionLimitError extends ExpressionError {
  constructor(
    expression: string,
    readonly limit: ExpressionLimitCode,
    reason: string,
  ) {
    super(`\`${shorten(expression)}\`: ${reason}`, expression);
    this.name = 'ExpressionLimitError';
  }
}

/** Long expressions are cut in messages. */
function shorten(expression: string): string {
  return expression.length > 80 ? `${expression.slice(0, 77)}...` : expression;
}

/** Converts JSON-like data into the values CEL expects (whole numbers become ints). */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = toCel(inner);
    return out;
  }
  return value;
}

/** The names an expression's syntax tree mentions as identifiers (free or macro-bound). */
const mentionedNames = new WeakMap<ParseResult, readonly string[]>();

function namesIn(parsed: ParseResult): readonly string[] {
  const known = mentionedNames.get(parsed);
  if (known) return known;
  const names = new Set<string>();
  forEachNode(parsed.ast, (node) => {
    if (node.op === 'id' && typeof node.args === 'string') names.add(node.args);
  });
  const list = [...names];
  mentionedNames.set(parsed, list);
  return list;
}

/**
 * Only the variables an expression mentions are converted for CEL: a scope holds every earlier
 * step's output (whole API answers), and converting all of it for each template of each step
 * cost more than evaluating them.
 */
function celVariables(parsed: ParseResult, variables: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of namesIn(parsed))
    if (Object.prototype.hasOwnProperty.call(variables, name)) picked[name] = toCel(variables[name]);
  return picked;
}

/** Converts a CEL result back to JSON data (ints become numbers, maps become objects). */
export function fromCel(value: unknown): JsonValue {
  if (typeof value === 'bigint') return Number(value);
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return value;
  if (value instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [key, inner] of value) out[String(key)] = fromCel(inner);
    return out;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(fromCel);
  if (typeof value === 'object') {
    if (Symbol.iterator in value && typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function') {
      return Array.from(value as Iterable<unknown>, fromCel);
    }
    const out: Record<string, JsonValue> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = fromCel(inner);
    return out;
  }
  return String(value);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The first line of a CEL library message (later lines draw a caret under the source). */
function firstLine(message: string): string {
  return celMessage(message.split('\n')[0]?.trim() ?? message);
}

/** A CEL library message as the author wrote the expression (`matches`, not the RE2 rename). */
export function celMessage(message: string): string {
  return message.split(RE2_MATCHES).join('matches');
}

/** Parses an expression without evaluating it; throws ExpressionError on a syntax error. */
export function checkSyntax(expression: string): void {
  parseExpression(expression);
}

export type ExpressionCheck =
  { ok: true; type: string } | { ok: false; message: string; limit?: ExpressionLimitCode };

/**
 * Parses and type-checks an expression with every variable as `dyn`: catches syntax errors,
 * unknown functions and operators that can never apply (`'a' + 1`). `type` is CEL's name for the
 * result type (`bool`, `int`, `list`, `dyn`, …).
 */
export function checkExpression(expression: string): ExpressionCheck {
  let parsed: ParseResult;
  try {
    parsed = parseCached(expression);
  } catch (error) {
    if (error instanceof ExpressionLimitError)
      return { ok: false, message: error.message, limit: error.limit };
    return { ok: false, message: `cannot parse \`${expression}\`: ${firstLine(errorMessage(error))}` };
  }
  const checked = parsed.check();
  if (checked.valid) return { ok: true, type: checked.type ?? 'dyn' };
  const reason = checked.error ? firstLine(checked.error.message) : 'type error';
  return { ok: false, message: `\`${expression}\`: ${reason}` };
}

/** Evaluates a CEL expression over JSON variables and returns JSON. */
export function evaluateExpression(expression: string, variables: Record<string, unknown>): JsonValue {
  const direct = readMemberPath(expression, variables);
  if (direct !== undefined) return direct;
  let result: unknown;
  try {
    const parsed = parseCached(expression);
    result = parsed(celVariables(parsed, variables));
  } catch (error) {
    if (error instanceof ExpressionLimitError) throw error;
    throw new ExpressionError(`\`${expression}\`: ${firstLine(errorMessage(error))}`, expression);
  }
  return fromCel(result);
}

/** Evaluates a condition; anything but a boolean is an error, so typos do not pass silently. */
export function evaluateCondition(expression: string, variables: Record<string, unknown>): boolean {
  const value = evaluateExpression(expression, variables);
  if (typeof value !== 'boolean') {
    throw new ExpressionError(
      `\`${expression}\` must be true or false, got ${JSON.stringify(value)}`,
      expression,
    );
  }
  return value;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
