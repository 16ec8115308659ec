// Every action of the catalogue exists on the client, as `call` and as a grouped method, and hits
// the catalogue's method and path.
import type { CloudClient } from '../../cloud/client';
import { ACTION_NAMES, operations, type ActionName, type OperationDef } from '../../cloud/operations';
import {
  BASE_PATH,
  sendJson,
  startScriptedServer,
  type ScriptedServer,
  scriptedClient,
} from '../helpers/cloud-scripted-server';

let server: ScriptedServer;
let client: CloudClient;

beforeAll(async () => {
  server = await startScriptedServer();
  // Only path parameters are sent here; body rules are covered elsewhere.
  client = scriptedClient(server, { validateRequests: false });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

/** The smallest body the operation's response schema accepts, found by trying candidates. */
function minimalAnswer(def: OperationDef): unknown {
  if (def.response === undefined) return undefined;
  const candidate = [[], {}, { logs: [] }, { type: 'apiKey' }].find(
    (body) => def.response?.safeParse(body).success,
  );
  if (candidate === undefined) throw new Error(`no minimal answer for ${def.path}`);
  return candidate;
}

/** Distinct, encoding-worthy values for each path parameter, and the path they should produce. */
function inputAndPath(action: ActionName): { input: Record<string, string>; path: string } {
  const def: OperationDef = operations[action];
  const input: Record<string, string> = {};
  let path = def.path;
  for (const param of def.pathParams) {
    input[param] = `${param} x/1`;
    path = path.replace(`{${param}}`, encodeURIComponent(input[param]));
  }
  return { input, path: BASE_PATH + path };
}

function split(action: ActionName): [string, string] {
  const [group, method] = action.split('.');
  return [group ?? '', method ?? ''];
}

it('has one group per resource the catalogue acts on, with one method per operation', () => {
  const groups = client as unknown as Record<string, unknown>;
  for (const resource of new Set(ACTION_NAMES.map((action) => operations[action].resource))) {
    const methods = Object.keys((groups[resource] ?? {}) as object);
    const actions = ACTION_NAMES.filter((action) => operations[action].resource === resource);
    expect(methods.map((method) => `${resource}.${method}`).sort()).toEqual(actions.sort());
  }
});

describe.each(ACTION_NAMES)('%s', (action) => {
  const def: OperationDef = operations[action];
  const [group, method] = split(action);

  it('is a grouped method that sends the catalogue’s method and path', async () => {
    const groupObject = (client as unknown as Record<string, Record<string, unknown>>)[group];
    const fn = groupObject?.[method];
    expect(typeof fn).toBe('function');
    server.handle((_request, response) => sendJson(response, def.successStatus, minimalAnswer(def)));
    const before = server.requests.length;
    const { input, path } = inputAndPath(action);
    const result = await (fn as (input: object) => Promise<unknown>)(input);
    const seen = server.requests[before];
    expect(seen?.method).toBe(def.method);
    expect(seen?.url).toBe(path);
    expect(result).toEqual(minimalAnswer(def));
  });

  it('is reachable through call()', async () => {
    server.handle((_request, response) => sendJson(response, def.successStatus, minimalAnswer(def)));
    const before = server.requests.length;
    const { input, path } = inputAndPath(action);
    await (client.call as (a: ActionName, i: object) => Promise<unknown>)(action, input);
    expect(server.requests[before]?.url).toBe(path);
    expect(server.requests[before]?.method).toBe(def.method);
  });
});

it('has no grouped method that is not in the catalogue', () => {
  const grouped = Object.entries(client as unknown as Record<string, unknown>)
    .filter(([, value]) => typeof value === 'object' && value !== null)
    .flatMap(([group, methods]) => Object.keys(methods as object).map((method) => `${group}.${method}`));
  expect(grouped.sort()).toEqual([...ACTION_NAMES].sort());
});
