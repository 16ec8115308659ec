// Building blocks for reading the Cloud API's answers tolerantly: the real API adds fields, sends
// null where a Go type lacks omitempty, renames fields (keeping the old name for a while) and grows
// its enums. Requests stay strict (cloud/requests.ts); answers are read with these.
import { z } from 'zod';
import { noteUnknownValue } from './unknown-values';

/**
 * Pairs of names the API sends for one field: `[current, deprecated]`. Whichever arrives, the parsed
 * answer carries both, so code reads the current name and runbooks written against either keep working.
 */
export type FieldAliases = readonly (readonly [current: string, deprecated: string])[];

/** Per shape, whether each field's schema gives null a meaning (asked once per field, not per answer). */
const nullMeaning = new WeakMap<z.ZodRawShape, Map<string, boolean>>();

function acceptsNull(shape: z.ZodRawShape, key: string): boolean {
  let known = nullMeaning.get(shape);
  if (known === undefined) nullMeaning.set(shape, (known = new Map()));
  let accepts = known.get(key);
  if (accepts === undefined) {
    accepts = (shape[key] as z.ZodType | undefined)?.safeParse(null).success ?? false;
    known.set(key, accepts);
  }
  return accepts;
}

/** `value` without the null fields whose schema does not itself give null a meaning. */
function readNullsAsAbsent(value: Record<string, unknown>, shape: z.ZodRawShape): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null && !acceptsNull(shape, key)) continue;
    out[key] = field;
  }
  return out;
}

function fillAliases(value: Record<string, unknown>, aliases: FieldAliases): Record<string, unknown> {
  for (const [current, deprecated] of aliases) {
    const chosen = value[current] ?? value[deprecated];
    if (chosen === undefined) continue;
    value[current] = chosen;
    value[deprecated] = chosen;
  }
  return value;
}

/**
 * An object in an answer: unknown fields are dropped, a null field the schema does not accept reads
 * as absent, and each alias pair is filled from whichever name arrived (the current one wins).
 */
export function answerObject<Shape extends z.ZodRawShape>(shape: Shape, aliases: FieldAliases = []) {
  return z.preprocess((value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    return fillAliases(readNullsAsAbsent(value as Record<string, unknown>, shape), aliases);
  }, z.object(shape));
}

/**
 * An enum in an answer: the known values, plus any other string, which passes through unchanged
 * and is reported once per value per process (noteUnknownValue). Its TypeScript type keeps the
 * known values for completion and exhaustiveness while admitting new ones.
 */
export function openEnum<const Values extends readonly [string, ...string[]]>(
  what: string,
  known: z.ZodEnum<{ [K in Values[number]]: K }>,
) {
  const values = new Set<string>(known.options);
  return z.string().overwrite((value) => {
    if (!values.has(value)) noteUnknownValue(what, value);
    return value;
  }) as unknown as z.ZodType<Values[number] | (string & {}), string>;
}
