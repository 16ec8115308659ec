// A wait whose `until` names only known values still works when the API answers a status this
// version does not know: the typed client passes the value through (reported once), the condition
// is simply false for it, and the wait goes on to READY. Real client, scripted HTTP server.
import { MockActivityEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities/deps';
import { createWaitActivity, type WaitInput, type WaitResult } from '../../activities/wait';
import type { CloudClient } from '../../cloud/client';
import { onUnknownValue, type UnknownValueListener } from '../../cloud/unknown-values';
import {
  scriptedClient,
  sendJson,
  startScriptedServer,
  type ScriptedServer,
} from '../helpers/cloud-scripted-server';

let server: ScriptedServer;
let client: CloudClient;
let previous: UnknownValueListener;
const heard: [string, string][] = [];

beforeAll(async () => {
  server = await startScriptedServer();
  client = scriptedClient(server);
  previous = onUnknownValue((what, value) => heard.push([what, value]));
});
afterAll(async () => {
  onUnknownValue(previous);
  await client.close();
  await server.close();
});

test('an unknown status passes through a wait for READY, reported once', async () => {
  const statuses = ['MIGRATING_WAIT_TEST', 'MIGRATING_WAIT_TEST', 'READY'];
  server.handle((_request, response) =>
    sendJson(response, 200, {
      service_id: 's1',
      project_id: 'p1',
      name: 'orders',
      status: statuses.shift() ?? 'READY',
      metrics: null,
    }),
  );
  const deps: ActivityDeps = { clients: { forProject: () => client }, random: () => 1 };
  const result = (await new MockActivityEnvironment().run(createWaitActivity(deps), {
    action: 'service.get',
    input: { project_id: 'p1', service_id: 's1' },
    until: "result.status == 'READY'",
    failIf: "result.status in ['DELETING', 'DELETED']",
    startedAt: Date.now(),
    deadline: Date.now() + 30_000,
    intervalMs: 10,
    maxIntervalMs: 20,
  } satisfies WaitInput)) as WaitResult;
  expect(result.polls).toBe(3);
  expect(result.result).toMatchObject({ status: 'READY', name: 'orders' });
  expect(heard.filter(([, value]) => value === 'MIGRATING_WAIT_TEST')).toEqual([
    ['service status', 'MIGRATING_WAIT_TEST'],
  ]);
});
