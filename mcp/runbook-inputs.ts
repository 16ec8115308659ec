// A runbook's typed inputs as an agent meets them: a JSON Schema generated from the declared
// inputs (types, bounds, patterns, enum values, defaults), the refusal of secret inputs given as
// tool arguments, and binding through the runbook language's own binder (dsl/inputs.ts), so a
// value the CLI would refuse is refused here with the same message.
import type { InputDefinition, RunbookDefinition } from '../dsl/definition';
import { DURATION_SOURCE } from '../dsl/durations';
import type { JsonValue } from '../dsl/expressions';
import { bindInputs } from '../dsl/inputs';
import { assertNever } from '../cloud/assert-never';
import { McpToolError } from './errors';

type JsonSchema = Record<string, unknown>;

/** The JSON Schema of one declared input's value. */
export function inputValueSchema(spec: InputDefinition): JsonSchema {
  const schema: JsonSchema = typeSchema(spec);
  if (spec.description !== undefined) schema.description = spec.description;
  if (spec.default !== undefined) schema.default = spec.default;
  return schema;
}

function typeSchema(spec: InputDefinition): JsonSchema {
  const bounds = (low: string, high: string): JsonSchema => ({
    ...(spec.min !== undefined && { [low]: spec.min }),
    ...(spec.max !== undefined && { [high]: spec.max }),
  });
  switch (spec.type) {
    case 'string':
      return {
        type: 'string',
        ...bounds('minLength', 'maxLength'),
        ...(spec.pattern !== undefined && { pattern: spec.pattern }),
      };
    case 'integer':
    case 'number':
      return { type: spec.type, ...bounds('minimum', 'maximum') };
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { type: 'string', enum: [...(spec.values ?? [])] };
    case 'duration':
      // Bounds of a duration are milliseconds; the binder checks them.
      return { type: 'string', pattern: `^${DURATION_SOURCE}$` };
    case 'list':
      return { type: 'array', ...bounds('minItems', 'maxItems') };
    case 'map':
      return { type: 'object' };
    default:
      return assertNever(spec.type);
  }
}

/** The names of the runbook's secret inputs. */
export function secretInputs(definition: Pick<RunbookDefinition, 'inputs'>): string[] {
  return Object.entries(definition.inputs)
    .filter(([, spec]) => spec.secret)
    .map(([name]) => name);
}

/**
 * The JSON Schema of the `inputs` argument an agent gives for this runbook. Secret inputs are not
 * in it: the server takes them from its own configuration, never from a tool argument.
 */
export function runbookInputsSchema(definition: Pick<RunbookDefinition, 'inputs'>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(definition.inputs)) {
    if (spec.secret) continue;
    properties[name] = inputValueSchema(spec);
    if (spec.required && spec.default === undefined) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

/** Refuses tool arguments that name a secret input (MCP_SECRET_ARGUMENT), naming where it comes from. */
export function refuseSecretArguments(
  definition: Pick<RunbookDefinition, 'inputs'>,
  given: Record<string, unknown>,
  sourceOf: (name: string) => string,
): void {
  const secrets = secretInputs(definition).filter((name) => Object.hasOwn(given, name));
  if (secrets.length === 0) return;
  const where = secrets.map((name) => `${name} from ${sourceOf(name)}`).join(', ');
  throw new McpToolError(
    'MCP_SECRET_ARGUMENT',
    `secret input${secrets.length > 1 ? 's' : ''} ${secrets.map((name) => `\`${name}\``).join(', ')} cannot be given as a tool argument: secrets never pass through an agent`,
    `the server takes ${where}; leave ${secrets.length > 1 ? 'them' : 'it'} out of \`inputs\``,
  );
}

export interface BoundRunbookInputs {
  /** What the run is started with: the agent's arguments and the configured secrets. */
  given: Record<string, unknown>;
  /** Every declared input with its value (defaults applied). */
  values: Record<string, JsonValue>;
}

/**
 * The agent's arguments (secrets refused) and the configured secret values, bound to the declared
 * inputs. Missing or wrong values are MCP_INPUTS_INVALID with every problem listed.
 */
export function bindAgentInputs(
  definition: Pick<RunbookDefinition, 'inputs'>,
  args: Record<string, unknown>,
  configured: { values: Record<string, unknown>; sourceOf(name: string): string },
): BoundRunbookInputs {
  refuseSecretArguments(definition, args, (name) => configured.sourceOf(name));
  const secrets = Object.fromEntries(
    secretInputs(definition).flatMap((name) =>
      configured.values[name] === undefined ? [] : [[name, configured.values[name]]],
    ),
  );
  const given = { ...args, ...secrets };
  const bound = bindInputs(definition.inputs, given);
  if (!bound.ok) {
    const lines = bound.problems.map((problem) => {
      const secret = definition.inputs[problem.input]?.secret === true;
      const hint = secret ? `configure ${configured.sourceOf(problem.input)}` : problem.hint;
      return `- ${problem.message}${hint !== undefined ? ` (${hint})` : ''}`;
    });
    throw new McpToolError('MCP_INPUTS_INVALID', 'the inputs do not fit the runbook', lines.join('\n'));
  }
  return { given, values: bound.values };
}

/** The bound values without the secret ones: what a plan hash covers and a result may show. */
export function visibleInputs(
  definition: Pick<RunbookDefinition, 'inputs'>,
  values: Record<string, JsonValue>,
): Record<string, JsonValue> {
  return Object.fromEntries(
    Object.entries(values).filter(([name]) => definition.inputs[name]?.secret !== true),
  );
}
