// The project's overlays of the vendor's API document (test/api-conformance/*.yaml): each names one
// difference between tiger-cli v0.21.2's openapi.yaml and what the API (or the local cloud) answers,
// says it in our words, gives its source, and lists the changes that turn the document into that
// dialect. Applying a change that finds nothing to change throws, so an overlay cannot silently
// drift from the document it patches.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { OasDocument, OasOperation, OasResponse, OasSchema } from './openapi-schema';
import { HTTP_METHODS, lookupRef } from './openapi-schema';

const Schema = z.record(z.string(), z.unknown()) as unknown as z.ZodType<OasSchema>;
/** A response body: a schema, `nothing` (no body) or `anything` (whatever comes is not read). */
const Body = z.union([z.literal('nothing'), z.literal('anything'), Schema]);
const Status = z.string().regex(/^([1-5][0-9][0-9]|[1-5]XX|default)$/, 'a status such as 200 or 4XX');
/** `Service` or a path inside a component: `Service.resources[].spec` (`.name` a property, `[]` items). */
const SchemaPath = z.string().regex(/^[A-Za-z][\w]*((\.[A-Za-z_][\w]*)|\[\])*$/, 'Component.prop[].prop');

const Change = z.union([
  z.strictObject({ define: z.string(), as: Schema }),
  z.strictObject({ in: SchemaPath, property: z.string(), set: Schema }),
  /** A new property shaped like an existing sibling (a field sent under a second name). */
  z.strictObject({ in: SchemaPath, property: z.string(), 'same-as': z.string() }),
  z.strictObject({ in: SchemaPath, property: z.string().optional(), merge: Schema }),
  z.strictObject({ in: SchemaPath, property: z.string(), remove: z.literal(true) }),
  z.strictObject({ in: SchemaPath, require: z.array(z.string()).min(1) }),
  /** A property added to every object schema that lists properties (components and inline). */
  z.strictObject({ 'every-object': z.literal(true), property: z.string(), set: Schema }),
  z.strictObject({ operation: z.string(), status: Status, answers: Body }),
  z.strictObject({ operation: z.string(), query: z.string(), set: Schema }),
  z.strictObject({ operation: z.string(), query: z.string(), remove: z.literal(true) }),
  z.strictObject({
    add: z.string(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: z.string().startsWith('/'),
    body: Schema.optional(),
    responses: z.record(Status, Body),
  }),
]);
export type OverlayChange = z.infer<typeof Change>;

const Difference = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  says: z.string().min(10),
  source: z.array(z.string()).min(1),
  /** Only for these dialects of the local cloud; all when absent. */
  dialects: z
    .array(z.enum(['seed', 'current']))
    .min(1)
    .optional(),
  changes: z.array(Change).min(1),
});

const Overlay = z
  .strictObject({
    overlay: z.string(),
    base: z.string(),
    sources: z.record(z.string(), z.string()),
    differences: z.array(Difference),
    /** Differences that change no answer the conformance check reads; listed so the diff is accounted for. */
    recorded: z
      .array(z.strictObject({ name: z.string(), says: z.string(), source: z.array(z.string()).min(1) }))
      .default([]),
  })
  .superRefine((overlay, ctx) => {
    const items = [...overlay.differences, ...overlay.recorded];
    const names = items.map((item) => item.name);
    for (const [index, item] of items.entries()) {
      if (names.indexOf(item.name) !== index) ctx.addIssue({ code: 'custom', message: `${item.name} twice` });
      for (const source of item.source) {
        if (!(source in overlay.sources))
          ctx.addIssue({ code: 'custom', message: `${item.name}: unknown source ${source}` });
      }
    }
  });
export type Overlay = z.infer<typeof Overlay>;

export function parseOverlay(text: string, what: string): Overlay {
  const result = Overlay.safeParse(parseYaml(text));
  if (!result.success) {
    const issues = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`overlay ${what} is invalid: ${issues.join('; ')}`);
  }
  return result.data;
}

export function readOverlay(file: string): Overlay {
  return parseOverlay(readFileSync(file, 'utf8'), file);
}

/**
 * The document with the overlay's changes made (the input is not modified); with a dialect, only
 * the differences that apply to it.
 */
export function applyOverlay(doc: OasDocument, overlay: Overlay, dialect?: 'seed' | 'current'): OasDocument {
  const out = structuredClone(doc);
  for (const difference of overlay.differences) {
    if (
      dialect !== undefined &&
      difference.dialects !== undefined &&
      !difference.dialects.includes(dialect)
    ) {
      continue;
    }
    for (const [index, change] of difference.changes.entries()) {
      try {
        applyChange(out, change);
      } catch (error) {
        throw new Error(
          `overlay ${overlay.overlay}, ${difference.name}, change ${index + 1}: ${(error as Error).message}`,
        );
      }
    }
  }
  return out;
}

function applyChange(doc: OasDocument, change: OverlayChange): void {
  if ('define' in change) {
    doc.components.schemas[change.define] = change.as;
  } else if ('add' in change) {
    addOperation(doc, change);
  } else if ('every-object' in change) {
    const found = objectSchemas(doc);
    if (found.length === 0) throw new Error('the document has no object schema');
    for (const schema of found) schema.properties = { ...schema.properties, [change.property]: change.set };
  } else if ('in' in change) {
    changeSchema(schemaAt(doc, change.in), change);
  } else if ('status' in change) {
    for (const operation of operationsNamed(doc, change.operation)) {
      operation.responses = { ...operation.responses, [change.status]: response(change.answers) };
    }
  } else {
    changeQuery(onlyOne(operationsNamed(doc, change.operation)), change);
  }
}

function changeSchema(target: OasSchema, change: Extract<OverlayChange, { in: string }>): void {
  if ('require' in change) {
    for (const name of change.require) {
      if (target.properties?.[name] === undefined) throw new Error(`${change.in} has no property ${name}`);
    }
    target.required = [...new Set([...(target.required ?? []), ...change.require])];
    return;
  }
  if (change.property === undefined) {
    Object.assign(target, 'merge' in change ? change.merge : {});
    return;
  }
  const properties = target.properties;
  if (properties === undefined) throw new Error(`${change.in} lists no properties`);
  const existing = properties[change.property];
  if ('set' in change) {
    properties[change.property] = change.set;
    return;
  }
  if ('same-as' in change) {
    const model = properties[change['same-as']];
    if (model === undefined) throw new Error(`${change.in} has no property ${change['same-as']}`);
    if (existing !== undefined) throw new Error(`${change.in} has a property ${change.property} already`);
    properties[change.property] = structuredClone(model);
    return;
  }
  if (existing === undefined) throw new Error(`${change.in} has no property ${change.property}`);
  if ('remove' in change) {
    delete properties[change.property];
    target.required = target.required?.filter((name) => name !== change.property);
    if (target.required?.length === 0) delete target.required;
  } else {
    // OpenAPI 3.0 ignores a $ref's siblings: merging there would change nothing.
    if (existing.$ref !== undefined) throw new Error(`${change.in}.${change.property} is ${existing.$ref}`);
    Object.assign(existing, change.merge);
  }
}

/**
 * The schema a path names. A `$ref` on the way (or at the end) is followed to the component it
 * names, so one path fits a document that writes a shape inline and one that names it
 * (`Service.resources[].spec` is inline in v0.21.2's document and `$ref: Resource`, then
 * `$ref: ResourceSpec`, in the newest): the change then lands in that component, for every use.
 */
function schemaAt(doc: OasDocument, path: string): OasSchema {
  const [root, ...steps] = path.split(/(?=\.|\[\])/);
  const component = doc.components.schemas[root ?? ''];
  if (component === undefined) throw new Error(`no component schema ${root}`);
  let node = followRefs(doc, component);
  for (const step of steps) {
    const next: OasSchema | undefined = step === '[]' ? node.items : node.properties?.[step.slice(1)];
    if (next === undefined) throw new Error(`${path}: nothing at ${step}`);
    node = followRefs(doc, next);
  }
  return node;
}

/** The schema a chain of `$ref`s ends at (the schema itself when it is no `$ref`). */
function followRefs(doc: OasDocument, schema: OasSchema): OasSchema {
  const seen = new Set<string>();
  let node = schema;
  while (node.$ref !== undefined) {
    if (seen.has(node.$ref)) throw new Error(`$ref cycle through ${node.$ref}`);
    seen.add(node.$ref);
    node = lookupRef(doc, node.$ref, 'schemas');
  }
  return node;
}

/** Every schema that lists properties, in components and inline in operations, each once. */
function objectSchemas(doc: OasDocument): OasSchema[] {
  const found = new Set<OasSchema>();
  const visit = (schema: OasSchema | undefined): void => {
    if (schema === undefined || found.has(schema)) return;
    if (schema.properties !== undefined) found.add(schema);
    Object.values(schema.properties ?? {}).forEach(visit);
    visit(schema.items);
    if (typeof schema.additionalProperties === 'object') visit(schema.additionalProperties);
    [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].forEach(visit);
  };
  const visitContent = (content: Record<string, { schema?: OasSchema }> | undefined): void =>
    Object.values(content ?? {}).forEach((media) => visit(media.schema));
  Object.values(doc.components.schemas).forEach(visit);
  Object.values(doc.components.responses ?? {}).forEach((r) => visitContent(r.content));
  for (const { operation } of allOperations(doc)) {
    visitContent(operation.requestBody?.content);
    Object.values(operation.responses ?? {}).forEach((r) => visitContent(r.content));
  }
  return [...found];
}

function response(body: z.infer<typeof Body>): OasResponse {
  if (body === 'nothing') return { description: 'No body.' };
  if (body === 'anything') return { description: 'A body that is not read.', 'x-body': 'anything' };
  return { description: 'A JSON body.', content: { 'application/json': { schema: body } } };
}

/** Every operation of the document (`*`) or the one with that operationId; none found throws. */
function operationsNamed(doc: OasDocument, id: string): OasOperation[] {
  const found = allOperations(doc)
    .filter((entry) => id === '*' || entry.operation.operationId === id)
    .map((entry) => entry.operation);
  if (found.length === 0) throw new Error(`no operation ${id}`);
  return found;
}

function onlyOne<T>(list: T[]): T {
  if (list.length !== 1 || list[0] === undefined) throw new Error('expected one operation, not *');
  return list[0];
}

export function allOperations(doc: OasDocument): { method: string; path: string; operation: OasOperation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method] !== undefined).map((method) => ({
      method: method.toUpperCase(),
      path,
      operation: item[method] as OasOperation,
    })),
  );
}

function changeQuery(operation: OasOperation, change: Extract<OverlayChange, { query: string }>): void {
  const parameters = operation.parameters ?? [];
  const index = parameters.findIndex((p) => p.in === 'query' && p.name === change.query);
  if ('remove' in change) {
    if (index < 0) throw new Error(`${operation.operationId} has no query parameter ${change.query}`);
    parameters.splice(index, 1);
  } else {
    const parameter = { name: change.query, in: 'query', required: false, schema: change.set };
    if (index < 0) parameters.push(parameter);
    else parameters[index] = parameter;
  }
  operation.parameters = parameters;
}

function addOperation(doc: OasDocument, change: Extract<OverlayChange, { add: string }>): void {
  if (allOperations(doc).some((entry) => entry.operation.operationId === change.add)) {
    throw new Error(`operation ${change.add} exists already`);
  }
  const method = change.method.toLowerCase() as (typeof HTTP_METHODS)[number];
  const item = (doc.paths[change.path] ??= {});
  if (item[method] !== undefined) throw new Error(`${change.method} ${change.path} exists already`);
  const parameters = [...change.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' as const },
  }));
  item[method] = {
    operationId: change.add,
    parameters,
    ...(change.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: change.body } } } }
      : {}),
    responses: Object.fromEntries(Object.entries(change.responses).map(([s, body]) => [s, response(body)])),
  };
}
