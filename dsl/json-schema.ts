// The JSON Schema of runbooks, generated from the zod schema, for editors (yaml-language-server):
// completion, hover docs and checks while typing. Per action, `with` also lists the action's
// input fields (from the operation catalogue), each accepting its literal type or a ${{ … }}.
import { z } from 'zod';
import type { ActionName } from '../cloud/operations';
import { operations } from '../cloud/operations';
import { ACTION_CATALOGUE } from './actions';
import { RunbookSchema, STEP_KIND_SCHEMAS, STEP_KINDS, type StepKind } from './schema';
import { languageOf } from './step-kinds/table';

type JsonSchema = Record<string, unknown>;

export const RUNBOOK_SCHEMA_FILE = 'schema/runbook.schema.json';

const TEMPLATE_STRING: JsonSchema = { type: 'string', pattern: '^\\$\\{\\{[\\s\\S]*\\}\\}$' };

/** A literal schema where any value, at any depth, may instead be a `${{ … }}` template. */
function allowTemplates(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  if (copy.items !== null && typeof copy.items === 'object')
    copy.items = allowTemplates(copy.items as JsonSchema);
  if (copy.properties !== null && typeof copy.properties === 'object') {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties as Record<string, JsonSchema>).map(([key, inner]) => [
        key,
        allowTemplates(inner),
      ]),
    );
  }
  return { anyOf: [copy, TEMPLATE_STRING] };
}

function fieldSchema(action: ActionName, field: string): JsonSchema {
  const def = operations[action];
  const shapeOwner =
    (def as { body?: z.ZodType; query?: z.ZodType }).body ?? (def as { query?: z.ZodType }).query;
  const shape = shapeOwner instanceof z.ZodObject ? (shapeOwner.shape as Record<string, z.ZodType>) : {};
  const schema = shape[field];
  if (!schema) return { type: 'string', minLength: 1, description: 'Path parameter' };
  const literal = z.toJSONSchema(schema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  delete literal.$schema;
  return allowTemplates(literal);
}

/** The actions a step kind may name under its key (`namesActions`). */
function nameableActions(names: 'any' | 'read') {
  return Object.values(ACTION_CATALOGUE).filter((info) => names === 'any' || info.kind === 'read');
}

/** `if call/wait/watch is A then with has A's fields`, for every action a step of this kind may name. */
function withByAction(kindKey: StepKind, names: 'any' | 'read'): JsonSchema[] {
  return nameableActions(names).map((info) => {
    const withSchema: JsonSchema = {
      type: 'object',
      properties: Object.fromEntries(info.fields.map((f) => [f.name, fieldSchema(info.name, f.name)])),
      additionalProperties: false,
    };
    if (info.requiredFields.length > 0) withSchema.required = info.requiredFields;
    const then: JsonSchema = { properties: { with: withSchema } };
    if (info.requiredFields.length > 0) then.required = ['with'];
    return { if: { properties: { [kindKey]: { const: info.name } }, required: [kindKey] }, then };
  });
}

/** The JSON Schema (draft-07, which yaml-language-server supports best) of a runbook file. */
export function runbookJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(RunbookSchema, {
    target: 'draft-7',
    io: 'input',
    override: (ctx) => {
      const kind = STEP_KINDS.find((k) => STEP_KIND_SCHEMAS[k] === ctx.zodSchema);
      const names = kind === undefined ? undefined : languageOf(kind).namesActions;
      if (kind === undefined || names === undefined) return;
      ctx.jsonSchema.allOf = withByAction(kind, names);
      if (names === 'read') {
        // Editors offer (and accept) only read actions after `wait:` and `watch:`.
        const properties = ctx.jsonSchema.properties as Record<string, JsonSchema> | undefined;
        const actionKey = properties?.[kind];
        if (actionKey) actionKey.enum = nameableActions(names).map((a) => a.name);
      }
    },
  }) as JsonSchema;
  return schema;
}

/** The committed file's exact text: two-space JSON and a final newline. */
export function runbookJsonSchemaText(): string {
  return `${JSON.stringify(runbookJsonSchema(), null, 2)}\n`;
}
