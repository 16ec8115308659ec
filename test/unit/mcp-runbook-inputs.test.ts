// An agent's view of a runbook's inputs (mcp/runbook-inputs.ts) and the plan hash over them
// (mcp/plan-hash.ts): the JSON Schema generated from the typed inputs, secret inputs refused as
// tool arguments and taken from the configured source, and binding problems listed.
import path from 'node:path';
import { definitionHash } from '../../activities/definition-hash';
import type { RunbookDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { McpToolError } from '../../mcp/errors';
import { planHash } from '../../mcp/plan-hash';
import { bindAgentInputs, runbookInputsSchema, visibleInputs } from '../../mcp/runbook-inputs';
import { thrownBy } from '../helpers/thrown';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');
const rotate = loadRunbookFile(path.join(RUNBOOKS, 'rotate-password.yaml'));
const provision = loadRunbookFile(path.join(RUNBOOKS, 'provision-production-service.yaml'));
const noSecrets = { values: {}, sourceOf: (name: string) => `TIDELINE_INPUT_${name.toUpperCase()}` };

function refusal(action: () => unknown): McpToolError {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(McpToolError);
  return error as McpToolError;
}

describe('the inputs schema', () => {
  it("is generated from the runbook's typed inputs: types, bounds, patterns, enums, defaults, required", () => {
    const schema = runbookInputsSchema(provision);
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(schema.required).toEqual(['project_id', 'name', 'vpc_id']);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.name).toMatchObject({ type: 'string', pattern: provision.inputs.name?.pattern });
    expect(properties.cpu_millis).toMatchObject({
      type: 'string',
      enum: provision.inputs.cpu_millis?.values,
      default: provision.inputs.cpu_millis?.default,
    });
    expect(properties.ready_timeout).toMatchObject({ type: 'string', default: '30m' });
    expect(new RegExp(properties.ready_timeout?.pattern as string).test('1h30m')).toBe(true);
  });

  it('maps every input type, with bounds where the type has them', () => {
    const inputs: RunbookDefinition['inputs'] = {
      count: { type: 'integer', required: true, secret: false, min: 1, max: 5 },
      ratio: { type: 'number', required: false, secret: false },
      on: { type: 'boolean', required: false, secret: false, default: true },
      tags: { type: 'list', required: false, secret: false, max: 3 },
      labels: { type: 'map', required: false, secret: false },
    };
    expect(runbookInputsSchema({ inputs }).properties).toEqual({
      count: { type: 'integer', minimum: 1, maximum: 5 },
      ratio: { type: 'number' },
      on: { type: 'boolean', default: true },
      tags: { type: 'array', maxItems: 3 },
      labels: { type: 'object' },
    });
  });

  it('leaves secret inputs out: the server takes them from its configuration', () => {
    const schema = runbookInputsSchema(rotate);
    expect(Object.keys(schema.properties as object)).toEqual(['project_id', 'service_id']);
    expect(schema.required).toEqual(['project_id', 'service_id']);
  });
});

describe('binding an agent’s inputs', () => {
  it('refuses a secret input given as a tool argument, naming where the server takes it from', () => {
    const error = refusal(() =>
      bindAgentInputs(rotate, { project_id: 'p', service_id: 's', new_password: 'hunter22' }, noSecrets),
    );
    expect(error.code).toBe('MCP_SECRET_ARGUMENT');
    expect(error.message).toContain('`new_password`');
    expect(error.detail).toContain('TIDELINE_INPUT_NEW_PASSWORD');
    expect(`${error.message} ${error.detail}`).not.toContain('hunter22');
  });

  it('takes secret inputs from the configured source, and never shows them', () => {
    const bound = bindAgentInputs(
      rotate,
      { project_id: 'p', service_id: 's' },
      { ...noSecrets, values: { new_password: 'correct-horse-battery', project_id: 'ignored' } },
    );
    expect(bound.given).toEqual({ project_id: 'p', service_id: 's', new_password: 'correct-horse-battery' });
    expect(visibleInputs(rotate, bound.values)).toEqual({
      project_id: 'p',
      service_id: 's',
    });
  });

  it('lists every binding problem, pointing a missing secret at its configured source', () => {
    const error = refusal(() => bindAgentInputs(rotate, { project_id: 'p', typo: 1 }, noSecrets));
    expect(error.code).toBe('MCP_INPUTS_INVALID');
    expect(error.detail).toContain('unknown input `typo`');
    expect(error.detail).toContain('input `service_id` is required');
    expect(error.detail).toContain(
      'input `new_password` is required (configure TIDELINE_INPUT_NEW_PASSWORD)',
    );
  });
});

describe('the plan hash', () => {
  const hashOf = (inputs: Record<string, unknown>, definition = provision) => {
    const bound = bindAgentInputs(definition, inputs, noSecrets);
    return planHash(definitionHash(definition), visibleInputs(definition, bound.values));
  };
  const inputs = { project_id: 'p', name: 'orders', vpc_id: '7' };

  it('is the same for the same definition and resolved inputs, however they were written', () => {
    expect(hashOf(inputs)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hashOf({ ...inputs, cpu_millis: '1000' })).toBe(hashOf(inputs)); // the default, given
  });

  it('changes with an input or the definition', () => {
    expect(hashOf({ ...inputs, name: 'orders-2' })).not.toBe(hashOf(inputs));
    const changed = { ...provision, description: `${provision.description} (edited)` };
    expect(hashOf(inputs, changed)).not.toBe(hashOf(inputs));
  });
});
