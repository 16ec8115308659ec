// Binds the inputs of a run to a runbook's declared inputs: fills defaults, converts text given on
// a command line (`-i cpu=2`) to the declared type, and checks pattern, bounds and enum values.
// Pure, so the CLI and the interpreter agree. Messages name inputs, never their values. Patterns
// use RE2 (patterns.ts), so no pattern or value can make binding hang.
import type { JsonValue } from './expressions';
import type { InputDefinition } from './definition';
import { isDuration, parseDuration } from './durations';
import { patternMatches, patternProblem } from './patterns';
import { suggestionHint } from './suggest';

export interface InputProblem {
  input: string;
  message: string;
  hint?: string;
}

export type BindResult =
  { ok: true; values: Record<string, JsonValue> } | { ok: false; problems: InputProblem[] };

type Converted = { value: JsonValue } | { error: string; hint?: string };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPlainMap(value: unknown): value is Record<string, JsonValue> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function convert(spec: InputDefinition, raw: unknown): Converted {
  switch (spec.type) {
    case 'string':
      return typeof raw === 'string' ? { value: raw } : { error: 'must be a string' };
    case 'enum': {
      const text = typeof raw === 'string' ? raw : undefined;
      const values = spec.values ?? [];
      if (text !== undefined && values.includes(text)) return { value: text };
      return { error: `must be one of ${values.join(', ')}` };
    }
    case 'integer':
    case 'number': {
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value))
        return { error: `must be ${spec.type === 'integer' ? 'an integer' : 'a number'}` };
      if (spec.type === 'integer' && !Number.isInteger(value)) return { error: 'must be an integer' };
      return { value };
    }
    case 'boolean':
      if (typeof raw === 'boolean') return { value: raw };
      if (raw === 'true' || raw === 'false') return { value: raw === 'true' };
      return { error: 'must be true or false' };
    case 'duration':
      if (typeof raw === 'string' && isDuration(raw)) return { value: raw };
      return { error: 'must be a duration', hint: 'write e.g. 30s, 5m or 1h30m' };
    case 'list': {
      const value =
        typeof raw === 'string'
          ? raw.trim().startsWith('[')
            ? parseJson(raw)
            : raw === ''
              ? []
              : raw.split(',').map((s) => s.trim())
          : raw;
      return Array.isArray(value)
        ? { value: value as JsonValue[] }
        : { error: 'must be a list', hint: 'give a JSON list or comma-separated values' };
    }
    case 'map': {
      const value = typeof raw === 'string' ? parseJson(raw) : raw;
      return isPlainMap(value) ? { value } : { error: 'must be a map', hint: 'give a JSON object' };
    }
  }
}

/** Where a value sits against the bounds: the number itself, a length, or milliseconds. */
function measure(spec: InputDefinition, value: JsonValue): { amount: number; unit: string } | undefined {
  if (spec.type === 'integer' || spec.type === 'number')
    return typeof value === 'number' ? { amount: value, unit: '' } : undefined;
  if (spec.type === 'string')
    return typeof value === 'string' ? { amount: value.length, unit: ' characters' } : undefined;
  if (spec.type === 'list')
    return Array.isArray(value) ? { amount: value.length, unit: ' items' } : undefined;
  if (spec.type === 'duration')
    return typeof value === 'string' ? { amount: parseDuration(value), unit: ' ms' } : undefined;
  return undefined;
}

/** Converts and checks one input value; returns an error message or the value. */
export function checkInputValue(spec: InputDefinition, raw: unknown): Converted {
  const converted = convert(spec, raw);
  if ('error' in converted) return converted;
  const { value } = converted;
  if (spec.pattern !== undefined && typeof value === 'string') {
    const problem = patternProblem(spec.pattern);
    if (problem !== undefined) return { error: `has a pattern that cannot be used: ${problem}` };
    if (!patternMatches(spec.pattern, value)) return { error: `must match the pattern ${spec.pattern}` };
  }
  const measured = measure(spec, value);
  if (measured && spec.min !== undefined && measured.amount < spec.min)
    return { error: `must be at least ${spec.min}${measured.unit}` };
  if (measured && spec.max !== undefined && measured.amount > spec.max)
    return { error: `must be at most ${spec.max}${measured.unit}` };
  return { value };
}

/** Binds given inputs (typed values or command-line text) to the declared ones. */
export function bindInputs(
  declared: Record<string, InputDefinition>,
  given: Record<string, unknown>,
): BindResult {
  const problems: InputProblem[] = [];
  const values: Record<string, JsonValue> = {};
  const names = Object.keys(declared);
  for (const name of Object.keys(given)) {
    if (!(name in declared))
      problems.push({
        input: name,
        message: `unknown input \`${name}\``,
        hint: suggestionHint(name, names, 'declared inputs'),
      });
  }
  for (const [name, spec] of Object.entries(declared)) {
    const raw = given[name];
    if (raw === undefined || raw === null) {
      if (spec.default !== undefined) values[name] = spec.default;
      else if (spec.required)
        problems.push({ input: name, message: `input \`${name}\` is required`, hint: spec.description });
      // An optional input without a default reads as null, so expressions can test for it.
      else values[name] = null;
      continue;
    }
    const checked = checkInputValue(spec, raw);
    if ('error' in checked) {
      const problem: InputProblem = { input: name, message: `input \`${name}\` ${checked.error}` };
      if (checked.hint !== undefined) problem.hint = checked.hint;
      problems.push(problem);
    } else values[name] = checked.value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}
