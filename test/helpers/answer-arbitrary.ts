// Answers generated from a resolved OpenAPI 3.0 schema (vendor-openapi.ts), for property-based
// tests of tideline's client: every value the schema admits is possible, plus what a tolerant reader
// must survive and the real API sends — null where the schema is nullable, optional fields absent,
// enum values the document does not list yet, unknown extra fields on objects, empty arrays.
import fc from 'fast-check';
import type { OasSchema } from './openapi-schema';

/** Prefix of generated unknown fields: no client model has a field of that name. */
export const UNKNOWN_FIELD_PREFIX = 'x_unknown_';

const MAX_ARRAY = 3;

/** RFC 3339 as Go marshals a time.Time: fractional seconds of 0–9 digits, `Z` or an offset. */
export function rfc3339(): fc.Arbitrary<string> {
  const date = fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2199-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
  const fraction = fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,9}$/));
  const offset = fc.oneof(
    fc.constant('Z'),
    fc
      .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 14 }), fc.constantFrom(0, 30, 45))
      .map(([sign, hours, minutes]) => `${sign}${pad(hours)}:${pad(minutes)}`),
  );
  return fc
    .tuple(date, fraction, offset)
    .map(([d, frac, off]) => `${d.toISOString().slice(0, 19)}${frac}${off}`);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

const unknownKey = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).map((tail) => UNKNOWN_FIELD_PREFIX + tail);
const anyJson = fc.jsonValue({ maxDepth: 2 });

function stringArbitrary(schema: OasSchema): fc.Arbitrary<string> {
  if (schema.format === 'date-time') return rfc3339();
  if (schema.format === 'email') {
    return fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}$/), fc.stringMatching(/^[a-z]{1,10}\.[a-z]{2,5}$/))
      .map(([local, domain]) => `${local.replace(/\.+$/, '')}@${domain}`);
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Math.max(minLength, 24);
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    return fc
      .stringMatching(pattern)
      .filter((value) => value.length >= minLength && value.length <= maxLength);
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

/** An enum: its listed values mostly, sometimes one the document does not list (the API grows). */
function enumArbitrary(values: readonly unknown[]): fc.Arbitrary<unknown> {
  const listed = values.filter((value) => value !== null);
  const known = fc.constantFrom(...listed);
  if (!listed.every((value) => typeof value === 'string')) return known;
  const unknown = fc.stringMatching(/^[A-Za-z][A-Za-z_]{1,15}$/).filter((value) => !listed.includes(value));
  return fc.oneof({ weight: 4, arbitrary: known }, { weight: 1, arbitrary: unknown });
}

function objectArbitrary(schema: OasSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const open = schema.additionalProperties !== false;
  const extraValue =
    typeof schema.additionalProperties === 'object'
      ? valueArbitrary(schema.additionalProperties, depth + 1)
      : anyJson;
  const extras = open
    ? fc.dictionary(names.length > 0 ? unknownKey : fc.string({ maxLength: 12 }), extraValue, { maxKeys: 2 })
    : fc.constant({});
  if (names.length === 0) return extras;
  const model = Object.fromEntries(names.map((name) => [name, valueArbitrary(properties[name]!, depth + 1)]));
  const required = (schema.required ?? []).filter((name) => name in model);
  return fc
    .tuple(fc.record(model, { requiredKeys: required }), extras)
    .map(([known, extra]) => ({ ...extra, ...known }));
}

/** Any value the schema admits, with the tolerance cases above mixed in. */
export function valueArbitrary(schema: OasSchema, depth = 0): fc.Arbitrary<unknown> {
  const base = nonNullArbitrary(schema, depth);
  return schema.nullable
    ? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: base })
    : base;
}

function nonNullArbitrary(schema: OasSchema, depth: number): fc.Arbitrary<unknown> {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((sub) => valueArbitrary(sub, depth)));
  if (schema.enum !== undefined) return enumArbitrary(schema.enum);
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 - 1 });
    case 'number':
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(schema.minimum !== undefined ? { min: schema.minimum } : {}),
        ...(schema.maximum !== undefined ? { max: schema.maximum } : {}),
      });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = schema.items ?? {};
      const maxLength = depth > 4 ? 0 : Math.min(schema.maxItems ?? MAX_ARRAY, MAX_ARRAY);
      return fc.array(valueArbitrary(items, depth + 1), { minLength: schema.minItems ?? 0, maxLength });
    }
    case 'object':
      return objectArbitrary(schema, depth);
    default:
      return schema.properties !== undefined ? objectArbitrary(schema, depth) : anyJson;
  }
}
