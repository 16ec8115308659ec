// Regular expressions with RE2 semantics (linear time in the input), for input `pattern`s and CEL's
// `matches()`. JavaScript's own RegExp backtracks: `^([a-z0-9]+-?)+$` against 36 characters and a
// `!` takes minutes, so a runbook or a value could hang the CLI, the worker or a workflow. CEL's
// specification says RE2 anyway. Pure (re2js has no Node built-ins), so it runs in the workflow
// sandbox; on ordinary patterns RE2 and RegExp agree, so replayed runs see the same answers.
import { RE2JS } from 're2js';

/** Longest pattern accepted: compiling is linear in the pattern, but keep it small and obvious. */
export const MAX_PATTERN_LENGTH = 1000;

export class PatternError extends Error {
  readonly code = 'PATTERN_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

/** Compiled patterns by source; compiling is pure, so a bounded cache is safe in the sandbox. */
const compiled = new Map<string, RE2JS>();
const CACHE_LIMIT = 200;

/** The first line of re2js's message, without its `error parsing regexp:` prefix. */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).replace(/^error parsing regexp: /, '');
}

/** Compiles a pattern; throws PatternError when it is too long or not valid RE2 syntax. */
export function compilePattern(pattern: string): RE2JS {
  const cached = compiled.get(pattern);
  if (cached) return cached;
  if (pattern.length > MAX_PATTERN_LENGTH)
    throw new PatternError(`longer than ${MAX_PATTERN_LENGTH} characters`);
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(pattern);
  } catch (error) {
    throw new PatternError(`not a valid RE2 regular expression (${reason(error)})`);
  }
  if (compiled.size >= CACHE_LIMIT) compiled.clear();
  compiled.set(pattern, regex);
  return regex;
}

/** Why a pattern cannot be used, or undefined when it compiles. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compilePattern(pattern);
    return undefined;
  } catch (error) {
    return reason(error);
  }
}

/** True when the pattern matches somewhere in the text (unanchored, like RegExp.prototype.test). */
export function patternMatches(pattern: string, text: string): boolean {
  return compilePattern(pattern).test(text);
}
