// CEL types for what runbook expressions read, so the static checker can tell `inputs.n > 'two'`
// or `until: '${{ result.status }}'` from a sound expression. Action answers come from their zod
// response schemas (objects become CEL object types with typed fields), inputs from their declared
// type. What cannot be known at validation time is `dyn`, where the checker stays permissive.
//
// Numbers: JSON has one number type, but whole numbers reach CEL as int and others as double
// (expressions.ts), so only a zod `int` is `int`; any other number is `dyn`.
import { z } from 'zod';
import { unwrapSchema } from './actions';
import type { InputType } from './schema-primitives';

/** A CEL object type to register: its name and the CEL type of each field. */
export interface CelObjectType {
  name: string;
  fields: Record<string, string>;
}

/** The object types found while converting schemas, by name (shared names are converted once). */
export type CelTypeTable = Map<string, CelObjectType>;

/** A CEL identifier-safe part of a type name. */
function namePart(text: string): string {
  return text.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * The CEL type of values a zod schema accepts; object types are added to `table` under names
 * derived from `name` (e.g. `tideline.service_get.vpc_endpoint`).
 */
export function celTypeOf(schema: z.ZodType, name: string, table: CelTypeTable): string {
  // Absence and null are checked at run time; an answer's pipe is read on its output side.
  const inner = unwrapSchema(schema, 'out');
  if (inner instanceof z.ZodString || inner instanceof z.ZodEnum) return 'string';
  if (inner instanceof z.ZodBoolean) return 'bool';
  if (inner instanceof z.ZodNumber) return inner.isInt ? 'int' : 'dyn';
  if (inner instanceof z.ZodLiteral) {
    const values = [...inner.values];
    if (values.every((v) => typeof v === 'string')) return 'string';
    if (values.every((v) => typeof v === 'boolean')) return 'bool';
    return 'dyn';
  }
  if (inner instanceof z.ZodArray) return `list<${celTypeOf(inner.element as z.ZodType, name, table)}>`;
  if (inner instanceof z.ZodRecord)
    return `map<string, ${celTypeOf(inner.valueType as z.ZodType, name, table)}>`;
  if (inner instanceof z.ZodObject) {
    const existing = table.get(name);
    if (existing) return existing.name;
    const type: CelObjectType = { name, fields: {} };
    table.set(name, type);
    for (const [field, fieldSchema] of Object.entries(inner.shape as Record<string, z.ZodType>))
      type.fields[field] = celTypeOf(fieldSchema, `${name}.${namePart(field)}`, table);
    return name;
  }
  return 'dyn';
}

/**
 * The CEL type of an input's value. Optional inputs without a default read as null; that is fine,
 * because the checker allows comparing any value with null.
 */
export function inputCelType(type: InputType): string {
  switch (type) {
    case 'string':
    case 'enum':
    case 'duration':
      return 'string';
    case 'integer':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'list':
      return 'list<dyn>';
    case 'map':
      return 'map<string, dyn>';
    case 'number':
      // Whole numbers arrive as int, others as double.
      return 'dyn';
  }
}

/** A CEL type name for a step's output or a runbook part: `tideline.<what>.<id>`. */
export function celTypeName(...parts: string[]): string {
  return ['tideline', ...parts.map(namePart)].join('.');
}
