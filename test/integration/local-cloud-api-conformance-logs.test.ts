// API conformance: service logs across pages with iterateLogPages / collectLogEntries against the local
// cloud. With the manual clock and one entry a second, a service that is N seconds old has N + 1
// entries, so page sizes and cursors are exact. Every case runs against both dialects of the local
// cloud: spec.md's `lastCursor` and the current `last_cursor` (the client reads both names).
import { collectLogEntries, iterateLogPages } from '../../cloud/logs';
import type { ServiceLogsResponse } from '../../cloud/models';
import {
  expectCloudError,
  startConformanceCloud,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';
import { DIALECTS } from '../helpers/local-cloud';

const PAGE = 500;
const INTERVAL_MS = 1000;

describe.each(DIALECTS)('%s dialect', (dialect) => {
  let fx: ConformanceCloud;
  let project: { project_id: string };

  beforeAll(async () => {
    fx = await startConformanceCloud({ dialect, logs: { intervalMs: INTERVAL_MS } });
    project = { project_id: fx.projectId };
  });
  afterAll(() => fx.close());

  /** A new service whose log holds exactly `count` entries (the clock is frozen until the next advance). */
  async function serviceWithEntries(count: number): Promise<string> {
    const created = await fx.client.service.create({ ...project, name: `logs-${count}` });
    fx.advance((count - 1) * INTERVAL_MS);
    return created.service_id!;
  }

  async function pagesOf(service_id: string, maxPages?: number): Promise<ServiceLogsResponse[]> {
    const pages: ServiceLogsResponse[] = [];
    for await (const page of iterateLogPages(fx.client, { ...project, service_id }, { maxPages }))
      pages.push(page);
    return pages;
  }

  const logCalls = () => fx.answered('service.logs', 200);

  test('1234 entries come as pages of 500, 500 and 234, newest first, each entry once', async () => {
    const service_id = await serviceWithEntries(1234);
    const callsBefore = await logCalls();
    const pages = await pagesOf(service_id);

    expect(pages.map((page) => page.entries?.length)).toEqual([PAGE, PAGE, 234]);
    expect(pages.map((page) => typeof page.lastCursor)).toEqual(['string', 'string', 'undefined']);
    expect(await logCalls()).toBe(callsBefore + 3);
    for (const page of pages) expect(page.logs).toEqual(page.entries!.map((entry) => entry.message));

    const times = pages.flatMap((page) => page.entries!.map((entry) => Date.parse(entry.timestamp)));
    expect(new Set(times).size).toBe(1234);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(-INTERVAL_MS);
    const oldest = pages.at(-1)!.entries!.at(-1)!;
    expect(oldest.message).toBe('database system is ready to accept connections');
    expect(Date.parse(oldest.timestamp)).toBe(times.at(-1));
  });

  test('collectLogEntries returns the same lines as the pages, across them', async () => {
    const service_id = await serviceWithEntries(777);
    const pages = await pagesOf(service_id);
    const lines = await collectLogEntries(fx.client, { ...project, service_id });
    expect(lines).toHaveLength(777);
    expect(lines).toEqual(pages.flatMap((page) => page.entries));
  });

  test('exactly one full page has no lastCursor; one more entry makes a second page of one', async () => {
    const full = await serviceWithEntries(PAGE);
    const fullPages = await pagesOf(full);
    expect(fullPages).toHaveLength(1);
    expect(fullPages[0]!.lastCursor).toBeUndefined();
    expect(fullPages[0]!.entries).toHaveLength(PAGE);

    const over = await serviceWithEntries(PAGE + 1);
    expect((await pagesOf(over)).map((page) => page.entries?.length)).toEqual([PAGE, 1]);
  });

  test('max stops collecting, and fetching, early; maxPages bounds the pages', async () => {
    const service_id = await serviceWithEntries(1600);
    let before = await logCalls();
    const lines = await collectLogEntries(fx.client, { ...project, service_id }, { max: 600 });
    expect(lines).toHaveLength(600);
    expect(await logCalls()).toBe(before + 2);

    before = await logCalls();
    const pages = await pagesOf(service_id, 2);
    expect(pages).toHaveLength(2);
    expect(pages[1]!.lastCursor).toEqual(expect.any(String));
    expect(await logCalls()).toBe(before + 2);
  });

  test('a since/until window is paged within its bounds', async () => {
    const service_id = await serviceWithEntries(2000);
    const created = Date.parse((await fx.getService(service_id)).created!);
    const since = new Date(created + 100 * INTERVAL_MS).toISOString();
    const until = new Date(created + 899 * INTERVAL_MS).toISOString();
    const lines = await collectLogEntries(fx.client, { ...project, service_id, since, until });
    expect(lines).toHaveLength(800);
    expect(lines[0]!.timestamp).toBe(until);
    expect(lines.at(-1)!.timestamp).toBe(since);
  });

  test('resuming from a returned cursor continues where the pages left off', async () => {
    const service_id = await serviceWithEntries(1100);
    const [first] = await pagesOf(service_id, 1);
    const rest = await collectLogEntries(fx.client, { ...project, service_id, cursor: first!.lastCursor });
    expect(rest).toHaveLength(600);
    expect(Date.parse(rest[0]!.timestamp!)).toBe(Date.parse(first!.entries!.at(-1)!.timestamp) - INTERVAL_MS);
  });

  test('search and severities (repeated query parameters) filter before paging', async () => {
    const service_id = await serviceWithEntries(3000);
    const all = await collectLogEntries(fx.client, { ...project, service_id });
    const severities = ['LOG', 'warning'];
    const kept = await collectLogEntries(fx.client, { ...project, service_id, severities });
    const expected = all.filter((entry) => entry.severity === 'LOG' || entry.severity === 'WARNING');
    expect(expected.length).toBeGreaterThan(PAGE);
    expect(kept).toEqual(expected);
    const search = ['checkpoint', 'COMPLETE'];
    const both = await collectLogEntries(fx.client, { ...project, service_id, search });
    expect(both.length).toBeGreaterThan(0);
    expect(both).toEqual(all.filter((e) => e.message.includes('checkpoint complete')));
  });

  test("a cursor that is not this service's is 400", async () => {
    const one = await serviceWithEntries(600);
    const other = await serviceWithEntries(600);
    const [page] = await pagesOf(one, 1);
    await expectCloudError(
      collectLogEntries(fx.client, { ...project, service_id: other, cursor: page!.lastCursor }),
      { code: 'CLOUD_API_BAD_REQUEST', status: 400, apiCode: 'INVALID_REQUEST' },
    );
    await expectCloudError(collectLogEntries(fx.client, { ...project, service_id: one, cursor: 'garbage' }), {
      code: 'CLOUD_API_BAD_REQUEST',
      status: 400,
    });
  });
});
