// A state file (`kind: State`): what a fleet should look like. Each rule picks services with the
// selector fields of a foreach's `targets` and says, in CEL over `service` (typed as the API's
// service answer), what each must satisfy; optionally the runbook that repairs a service that does
// not. This zod schema is the format's single source; the types are inferred from it.
import { z } from 'zod';
import { TargetsSelector } from '../dsl/targets';

export const STATE_SCHEMA_FILE = 'schema/state.schema.json';

/** The selector of a rule: a foreach's `targets` fields, without the project (the file's). */
export const StateSelector = TargetsSelector.omit({ project_id: true }).describe(
  'Which services the rule is about: the fields of a foreach `targets` selector (all given must match)',
);
export type StateSelector = z.infer<typeof StateSelector>;

export const Severity = z.enum(['error', 'warning', 'info']);
export type Severity = z.infer<typeof Severity>;

export const StateRule = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and -, starting with a letter')
    .describe('The rule, as findings name it'),
  description: z.string().min(1).optional(),
  select: StateSelector.default({}),
  expect: z
    .string()
    .min(1)
    .describe(
      "CEL over `service` (the API's service answer) that must be true, e.g. service.ha_replicas.replica_count >= 1",
    ),
  severity: Severity.default('error').describe(
    'error and warning findings make `tideline drift` exit 1; info ones do not',
  ),
  repair: z
    .strictObject({
      runbook: z.string().min(1).describe('The runbook that repairs a service, relative to this file'),
      with: z
        .record(z.string(), z.unknown())
        .default({})
        .describe('Its inputs; ${{ service.… }} and ${{ project_id }} are filled in per service'),
      auto: z
        .boolean()
        .default(false)
        .describe(
          "A drift watcher of this file starts the repair itself, once per appearance of the drift, as the worker's drift.repairAs",
        ),
    })
    .optional()
    .describe('How a service that breaks the rule is repaired'),
});
export type StateRule = z.infer<typeof StateRule>;

export const StateFile = z
  .strictObject({
    apiVersion: z.literal('tideline/v1'),
    kind: z.literal('State'),
    name: z.string().min(1).max(100),
    description: z.string().min(1).optional(),
    project_id: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The project whose services the rules are about (default: the configuration's default project)",
      ),
    rules: z.array(StateRule).min(1),
  })
  .meta({ id: 'StateFile', description: 'What a fleet should look like: rules over its services' });
export type StateFile = z.infer<typeof StateFile>;

/** The JSON Schema of state files for editors (draft-07), as committed in STATE_SCHEMA_FILE. */
export function stateJsonSchemaText(): string {
  const schema = z.toJSONSchema(StateFile, { target: 'draft-7', io: 'input', unrepresentable: 'any' });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
