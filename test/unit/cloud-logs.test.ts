// Following log pages through the cursor (`lastCursor` in spec.md, `last_cursor` in the current
// dialect), against a scripted server holding 7 entries.
import type { CloudClient } from '../../cloud/client';
import { collectLogEntries, iterateLogPages } from '../../cloud/logs';
import {
  sendJson,
  startScriptedServer,
  type ScriptedServer,
  scriptedClient,
} from '../helpers/cloud-scripted-server';

const ENTRIES = Array.from({ length: 7 }, (_, i) => ({
  message: `line ${7 - i}`,
  severity: i === 0 ? 'ERROR' : 'LOG',
  timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, 7 - i)).toISOString(),
}));
const PAGE = 3;

let server: ScriptedServer;
let client: CloudClient;

/** Pages of 3, newest first; the cursor is the index of the next entry. */
function servePages(
  options: { structured: boolean; dialect?: 'seed' | 'current' } = { structured: true },
): void {
  const cursorField = options.dialect === 'current' ? 'last_cursor' : 'lastCursor';
  server.handle((request, response) => {
    const url = new URL(request.url, 'http://x');
    const start = Number(url.searchParams.get('cursor') ?? '0');
    const slice = ENTRIES.slice(start, start + PAGE);
    const next = start + PAGE < ENTRIES.length ? String(start + PAGE) : undefined;
    sendJson(response, 200, {
      // The current dialect may send the legacy list as null (a Go slice without omitempty).
      logs: options.dialect === 'current' ? null : slice.map((e) => e.message),
      ...(options.structured ? { entries: slice } : {}),
      ...(next !== undefined ? { [cursorField]: next } : {}),
      ...(options.dialect === 'current' ? { unknown_extra: { x: 1 } } : {}),
    });
  });
}

beforeEach(async () => {
  server = await startScriptedServer();
  client = scriptedClient(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

it('follows last_cursor in the current dialect, with the legacy list null', async () => {
  servePages({ structured: true, dialect: 'current' });
  const lines = await collectLogEntries(client, { project_id: 'p1', service_id: 's1' });
  expect(lines.map((l) => l.message)).toEqual(ENTRIES.map((e) => e.message));
  const queries = server.requests.map((r) => new URL(r.url, 'http://x').searchParams);
  expect(queries.map((q) => q.get('cursor'))).toEqual([null, '3', '6']);
});

it('reads a page under both cursor names, whichever arrived', async () => {
  servePages({ structured: true, dialect: 'current' });
  const [first] = await pagesOf(
    iterateLogPages(client, { project_id: 'p1', service_id: 's1' }, { maxPages: 1 }),
  );
  expect(first).toMatchObject({ last_cursor: '3', lastCursor: '3' });
  expect(first).not.toHaveProperty('logs');
  expect(first).not.toHaveProperty('unknown_extra');
});

it('sends search terms and severities as repeated query parameters', async () => {
  servePages();
  await collectLogEntries(
    client,
    { project_id: 'p1', service_id: 's1', search: ['slow query', 'orders'], severities: ['ERROR'] },
    { maxPages: 1 },
  );
  const query = new URL(server.requests[0]!.url, 'http://x').searchParams;
  expect(query.getAll('search')).toEqual(['slow query', 'orders']);
  expect(query.getAll('severities')).toEqual(['ERROR']);
});

async function pagesOf<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

it('yields every page until lastCursor is absent', async () => {
  servePages();
  const pages = [];
  for await (const page of iterateLogPages(client, { project_id: 'p1', service_id: 's1', node: 0 }))
    pages.push(page);
  expect(pages.map((p) => p.logs?.length)).toEqual([3, 3, 1]);
  expect(pages.map((p) => p.lastCursor)).toEqual(['3', '6', undefined]);
  const queries = server.requests.map((r) => new URL(r.url, 'http://x').searchParams);
  expect(queries.map((q) => q.get('cursor'))).toEqual([null, '3', '6']);
  expect(queries.every((q) => q.get('node') === '0')).toBe(true);
});

it('collects all entries newest first', async () => {
  servePages();
  const lines = await collectLogEntries(client, { project_id: 'p1', service_id: 's1' });
  expect(lines).toEqual(ENTRIES);
});

it('stops at max without fetching further pages', async () => {
  servePages();
  const lines = await collectLogEntries(client, { project_id: 'p1', service_id: 's1' }, { max: 4 });
  expect(lines.map((l) => l.message)).toEqual(['line 7', 'line 6', 'line 5', 'line 4']);
  expect(server.requests).toHaveLength(2);
});

it('falls back to the legacy logs array when entries are absent', async () => {
  servePages({ structured: false });
  const lines = await collectLogEntries(client, { project_id: 'p1', service_id: 's1' });
  expect(lines).toEqual(ENTRIES.map((e) => ({ message: e.message })));
});

it('starts from a given cursor and honours maxPages', async () => {
  servePages();
  const lines = await collectLogEntries(
    client,
    { project_id: 'p1', service_id: 's1', cursor: '3' },
    { maxPages: 1 },
  );
  expect(lines.map((l) => l.message)).toEqual(['line 4', 'line 3', 'line 2']);
  expect(server.requests).toHaveLength(1);
});

it('refuses a cursor that repeats instead of looping forever', async () => {
  server.reply(200, { logs: ['again'], lastCursor: 'same' });
  await expect(collectLogEntries(client, { project_id: 'p1', service_id: 's1' })).rejects.toMatchObject({
    code: 'CLOUD_API_INVALID_RESPONSE',
  });
  expect(server.requests).toHaveLength(2);
});
