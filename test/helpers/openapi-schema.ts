// OpenAPI 3.0 documents as the API-conformance tests read them: the few shapes they use, `$ref`s resolved
// inline, `allOf` merged into one schema, and the conversion of an OpenAPI 3.0 schema (with its
// `nullable`) to a JSON Schema that Ajv validates against.

export interface OasSchema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  nullable?: boolean;
  enum?: unknown[];
  format?: string;
  properties?: Record<string, OasSchema>;
  required?: string[];
  additionalProperties?: boolean | OasSchema;
  items?: OasSchema;
  allOf?: OasSchema[];
  anyOf?: OasSchema[];
  oneOf?: OasSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  deprecated?: boolean;
  /** Ours (overlays): a deprecated property whose current name is the value. */
  'x-replaced-by'?: string;
  [other: string]: unknown;
}

export interface OasResponse {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: OasSchema }>;
  /** Ours (overlays): whatever body comes with this status is not read. */
  'x-body'?: 'anything';
}

export interface OasParameter {
  $ref?: string;
  name?: string;
  in?: string;
  required?: boolean;
  deprecated?: boolean;
  schema?: OasSchema;
  style?: string;
  explode?: boolean;
}

export interface OasOperation {
  operationId?: string;
  parameters?: OasParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: OasSchema }> };
  responses?: Record<string, OasResponse>;
  [other: string]: unknown;
}

export interface OasDocument {
  openapi: string;
  paths: Record<string, Record<string, OasOperation>>;
  components: {
    schemas: Record<string, OasSchema>;
    responses?: Record<string, OasResponse>;
    parameters?: Record<string, OasParameter>;
  };
  [other: string]: unknown;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `#/components/<section>/<name>` → the named entry; throws for anything else. */
export function lookupRef<S extends 'schemas' | 'responses' | 'parameters'>(
  doc: OasDocument,
  ref: string,
  section: S,
): NonNullable<OasDocument['components'][S]>[string] {
  const prefix = `#/components/${section}/`;
  const found = ref.startsWith(prefix) ? doc.components[section]?.[ref.slice(prefix.length)] : undefined;
  if (found === undefined) throw new Error(`unresolvable $ref ${ref} (expected one under ${prefix})`);
  return found as NonNullable<OasDocument['components'][S]>[string];
}

export function resolveResponse(doc: OasDocument, response: OasResponse): OasResponse {
  return response.$ref !== undefined ? lookupRef(doc, response.$ref, 'responses') : response;
}

export function resolveParameter(doc: OasDocument, parameter: OasParameter): OasParameter {
  return parameter.$ref !== undefined ? lookupRef(doc, parameter.$ref, 'parameters') : parameter;
}

/**
 * The schema with every `$ref` replaced by what it names (OpenAPI 3.0 ignores a `$ref`'s siblings)
 * and every `allOf` merged into its parent, so later walks see one plain tree. A cycle throws.
 */
export function resolveSchema(doc: OasDocument, schema: OasSchema, seen: readonly string[] = []): OasSchema {
  if (schema.$ref !== undefined) {
    if (seen.includes(schema.$ref)) throw new Error(`recursive schema through ${schema.$ref}`);
    return resolveSchema(doc, lookupRef(doc, schema.$ref, 'schemas'), [...seen, schema.$ref]);
  }
  const { allOf, ...rest } = schema;
  const out: OasSchema = { ...rest };
  if (rest.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(rest.properties).map(([name, sub]) => [name, resolveSchema(doc, sub, seen)]),
    );
  }
  if (rest.items !== undefined) out.items = resolveSchema(doc, rest.items, seen);
  if (typeof rest.additionalProperties === 'object') {
    out.additionalProperties = resolveSchema(doc, rest.additionalProperties, seen);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = rest[key];
    if (list !== undefined) out[key] = list.map((sub) => resolveSchema(doc, sub, seen));
  }
  if (allOf === undefined) return out;
  const parts = allOf.map((part) => resolveSchema(doc, part, seen));
  const merged = parts.reduce<OasSchema>(mergeSchemas, out);
  // null passes an allOf when the parent says so or when every member admits it.
  if (rest.nullable === true || parts.every((part) => part.nullable === true)) merged.nullable = true;
  else delete merged.nullable;
  return merged;
}

/** `allOf` of two resolved schemas: properties and required lists joined, other keywords kept. */
function mergeSchemas(into: OasSchema, part: OasSchema): OasSchema {
  const merged: OasSchema = { ...part, ...into };
  if (into.type !== undefined && part.type !== undefined && into.type !== part.type) {
    throw new Error(`allOf joins the types ${into.type} and ${part.type}`);
  }
  // The parent's (earlier members') entries first and winning; a later member adds its own.
  if (into.properties !== undefined || part.properties !== undefined) {
    const properties: Record<string, OasSchema> = { ...into.properties };
    for (const [name, sub] of Object.entries(part.properties ?? {})) properties[name] ??= sub;
    merged.properties = properties;
  }
  const required = [...(into.required ?? []), ...(part.required ?? [])];
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

const KEPT_KEYWORDS = [
  'type',
  'enum',
  'required',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
] as const;
/** Formats the answer check verifies; others (`password`, `int64`, `double`, `cidr`) only describe. */
const CHECKED_FORMATS = new Set(['date-time', 'email']);

export interface JsonSchemaOptions {
  /**
   * Objects that list their properties admit no others unless they say so: how the local cloud's
   * own answers are checked, so a field neither document has fails loudly. Clients read answers
   * open (the default), as the API adds fields.
   */
  closed?: boolean;
}

/** A resolved OpenAPI 3.0 schema as a JSON Schema (draft-07) for Ajv. */
export function toJsonSchema(schema: OasSchema, options: JsonSchemaOptions = {}): Record<string, unknown> {
  if (schema.$ref !== undefined || schema.allOf !== undefined) {
    throw new Error('toJsonSchema takes a resolved schema (resolveSchema first)');
  }
  const out: Record<string, unknown> = {};
  for (const key of KEPT_KEYWORDS) if (schema[key] !== undefined) out[key] = schema[key];
  if (schema.format !== undefined && CHECKED_FORMATS.has(schema.format)) out.format = schema.format;
  if (schema.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, sub]) => [name, toJsonSchema(sub, options)]),
    );
  }
  if (schema.items !== undefined) out.items = toJsonSchema(schema.items, options);
  if (typeof schema.additionalProperties === 'object') {
    out.additionalProperties = toJsonSchema(schema.additionalProperties, options);
  } else if (schema.additionalProperties !== undefined) {
    out.additionalProperties = schema.additionalProperties;
  } else if (options.closed && schema.properties !== undefined) {
    out.additionalProperties = false;
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (list !== undefined) out[key] = list.map((sub) => toJsonSchema(sub, options));
  }
  if (!schema.nullable) return out;
  if (typeof out.type === 'string' && out.anyOf === undefined && out.oneOf === undefined) {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}
