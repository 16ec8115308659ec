// Checking action inputs costs no more than it must: the schemas are built once per action (zod
// compiles every new object schema), and an activity's call is validated once, not again by the
// client — while the client still checks every input it was not handed a checked split for.
import type * as ZodModule from 'zod';
import * as actionInput from '../../cloud/action-input';
import { callAction } from '../../activities/call-action';
import type { CloudClient } from '../../cloud/client';
import { CloudApiError } from '../../cloud/errors';
import { startScriptedServer, type ScriptedServer, scriptedClient } from '../helpers/cloud-scripted-server';

describe('schemas of action inputs', () => {
  afterEach(() => {
    jest.dontMock('zod');
    jest.resetModules();
  });

  test('are built once per action, not per validation', () => {
    const actual = jest.requireActual<typeof ZodModule>('zod');
    const strictObject = jest.fn(actual.z.strictObject);
    jest.doMock('zod', () => ({ ...actual, z: { ...actual.z, strictObject } }));
    let validate!: typeof actionInput.validateActionInput;
    jest.isolateModules(() => {
      // A fresh copy of the module, so it is built against the counting zod (import() is not CJS).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      validate = (require('../../cloud/action-input') as typeof actionInput).validateActionInput;
    });
    const built = (): number => strictObject.mock.calls.length;

    expect(validate('service.get', { project_id: 'p1', service_id: 's1' }).ok).toBe(true);
    expect(validate('project.list', {}).ok).toBe(true);
    const afterFirstUse = built();
    for (let i = 0; i < 20; i++) {
      expect(validate('service.get', { project_id: 'p1', service_id: `s${i}` }).ok).toBe(true);
      expect(validate('project.list', {}).ok).toBe(true);
      expect(validate('service.get', { project_id: 'p1', service_id: '' }).ok).toBe(false);
    }
    expect(built()).toBe(afterFirstUse);
  });

  test('a cached schema still reports each problem at its own path', () => {
    const { validateActionInput } = actionInput;
    for (let i = 0; i < 2; i++) {
      expect(validateActionInput('service.get', { project_id: 'p1', service_id: '', extra: 1 })).toEqual({
        ok: false,
        issues: [
          { path: ['service_id'], message: 'must be a non-empty id' },
          { path: ['extra'], message: 'unknown field "extra"' },
        ],
      });
    }
  });
});

describe('one validation per activity call', () => {
  let server: ScriptedServer;
  let client: CloudClient;

  beforeEach(async () => {
    server = await startScriptedServer();
    client = scriptedClient(server, { accessKey: 'access-1', secretKey: 'secret-1' });
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await client.close();
    await server.close();
  });

  const deps = () => ({ clients: { forProject: () => client } });

  test('the activity checks the input and the client sends that check’s result as is', async () => {
    const validate = jest.spyOn(actionInput, 'validateActionInput');
    server.reply(200, { service_id: 's1', status: 'READY' });
    const result = await callAction(deps(), 'service.get', { project_id: 'p1', service_id: 's1' }, {});
    expect(result).toEqual({ service_id: 's1', status: 'READY' });
    expect(validate).toHaveBeenCalledTimes(1);
    expect(server.requests[0]?.url).toMatch(/\/projects\/p1\/services\/s1$/);

    server.reply(202, { service_id: 's1', status: 'QUEUED' });
    const input = { project_id: 'p1', service_id: 's1', cpu_millis: '1000', memory_gbs: '4' };
    await callAction(deps(), 'service.resize', input, {});
    expect(validate).toHaveBeenCalledTimes(2);
    expect(JSON.parse(server.requests[1]?.body ?? '')).toEqual({ cpu_millis: '1000', memory_gbs: '4' });
  });

  test('the client validates anyway when the checked split is forged, another action’s or another input’s', async () => {
    const bad = { project_id: 'p1', service_id: '' };
    const forged = { params: { project_id: 'p1', service_id: 'x' }, body: undefined, query: undefined };
    const ok = actionInput.validateActionInput('service.get', { project_id: 'p1', service_id: 'x' });
    if (!ok.ok) throw new Error('expected a valid input');
    const otherAction = actionInput.validateActionInput('service.stop', bad);
    expect(otherAction.ok).toBe(false);
    const stopOk = actionInput.validateActionInput('service.stop', { project_id: 'p1', service_id: 'x' });
    if (!stopOk.ok) throw new Error('expected a valid input');

    for (const checkedInput of [forged, ok.value, stopOk.value]) {
      const error = await client.service.get(bad, { checkedInput }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CloudApiError);
      expect(error).toMatchObject({ code: 'CLOUD_API_BAD_REQUEST', action: 'service.get' });
    }
    expect(server.requests).toHaveLength(0);
  });
});
