// Service logs of the local cloud in its default, current dialect: generated entries, newest
// first, at most 500 a page, `last_cursor` (the only name the vendor's newest CLI follows; never
// the deprecated `lastCursor` here) only while older entries remain, and `logs` mirroring `entries`.
import type { Service, ServiceLogsResponse } from '../../cloud/models';
import { call, paths, startTestCloud, type TestCloud } from '../helpers/local-cloud';

let tc: TestCloud;
let logsPath: string;

beforeAll(async () => {
  tc = await startTestCloud({ manualClock: true, logs: { intervalMs: 1000, maxEntries: 5000 } });
  const p = paths(tc);
  const created = await call<Service>(tc, 'POST', p.services, { body: { name: 'chatty' } });
  logsPath = `${p.service(created.body.service_id!)}/logs`;
});
afterAll(() => tc.close());

async function page(query = ''): Promise<ServiceLogsResponse> {
  const answer = await call<ServiceLogsResponse>(tc, 'GET', logsPath + query);
  expect(answer.status).toBe(200);
  expect(answer.body).not.toHaveProperty('lastCursor');
  return answer.body;
}

test('a new service has one entry and no cursor', async () => {
  const first = await page();
  expect(first.entries).toHaveLength(1);
  expect(first.logs).toEqual(first.entries!.map((e) => e.message));
  expect(first).not.toHaveProperty('last_cursor');
});

test('1234 entries come back in pages of 500, 500, 234, newest first, with stable cursors', async () => {
  tc.advance(1233 * 1000);
  const seen: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const body = await page(cursor ? `?cursor=${encodeURIComponent(cursor)}` : '');
    pages += 1;
    sizes.push(body.entries!.length);
    expect(body.logs).toEqual(body.entries!.map((e) => e.message));
    for (const entry of body.entries!) {
      expect(entry).toEqual({
        timestamp: expect.any(String),
        severity: expect.any(String),
        message: expect.any(String),
      });
      seen.push(entry.timestamp);
    }
    cursor = body.last_cursor;
    // New entries arriving between pages must not shift the pages that follow.
    tc.advance(5000);
  } while (cursor !== undefined && pages < 10);
  expect(sizes).toEqual([500, 500, 234]);
  const times = seen.map((t) => Date.parse(t));
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  expect(new Set(times).size).toBe(times.length);
});

test('since/until narrow the window', async () => {
  const all = await page();
  const newest = Date.parse(all.entries![0]!.timestamp);
  const since = new Date(newest - 9000).toISOString();
  const window = await page(`?since=${encodeURIComponent(since)}`);
  expect(window.entries).toHaveLength(10);
  expect(window).not.toHaveProperty('last_cursor');
  const until = new Date(newest - 1000).toISOString();
  const both = await page(`?since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`);
  expect(both.entries).toHaveLength(9);
  expect(both.entries![0]!.timestamp).toBe(until);
});

describe('search and severities', () => {
  /** Every page of a query, following cursors (at most 20 pages). */
  async function allPages(query: string): Promise<ServiceLogsResponse[]> {
    const pages: ServiceLogsResponse[] = [];
    let cursor: string | undefined;
    do {
      const separator = query === '' ? '?' : '&';
      pages.push(await page(query + (cursor ? `${separator}cursor=${encodeURIComponent(cursor)}` : '')));
      cursor = pages.at(-1)!.last_cursor;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  let all: NonNullable<ServiceLogsResponse['entries']>;
  beforeAll(async () => {
    // Several thousand entries, so filtered sequences span more than one page.
    tc.advance(4000 * 1000);
    all = (await allPages('')).flatMap((p) => p.entries!);
    expect(all.length).toBeGreaterThan(4000);
  });

  test('one severity given once (a string, not a list) keeps only its entries, case-insensitive', async () => {
    const pages = await allPages('?severities=error');
    const kept = pages.flatMap((p) => p.entries!);
    expect(kept).toEqual(all.filter((entry) => entry.severity === 'ERROR'));
    expect(kept.length).toBeGreaterThan(0);
  });

  test('repeated severities are alternatives; paging walks the filtered sequence', async () => {
    const pages = await allPages('?severities=LOG&severities=fatal');
    const expected = all.filter((entry) => entry.severity === 'LOG' || entry.severity === 'FATAL');
    expect(expected.length).toBeGreaterThan(1000);
    expect(pages.map((p) => p.entries!.length)).toEqual(
      [...Array(Math.ceil(expected.length / 500)).keys()].map((i) =>
        Math.min(500, expected.length - i * 500),
      ),
    );
    expect(pages.flatMap((p) => p.entries!)).toEqual(expected);
    expect(pages.at(-1)).not.toHaveProperty('last_cursor');
    for (const p of pages) expect(p.logs).toEqual(p.entries!.map((entry) => entry.message));
  });

  test('repeated search terms must all appear in the message (AND), case-insensitive', async () => {
    const one = (await allPages('?search=CHECKPOINT')).flatMap((p) => p.entries!);
    expect(one).toEqual(all.filter((entry) => entry.message.includes('checkpoint')));
    expect(one.some((entry) => entry.message.includes('complete'))).toBe(true);
    expect(one.some((entry) => !entry.message.includes('complete'))).toBe(true);
    const both = (await allPages('?search=checkpoint&search=Complete')).flatMap((p) => p.entries!);
    expect(both.length).toBeGreaterThan(0);
    expect(both).toEqual(one.filter((entry) => entry.message.includes('complete')));
  });

  test('search and severities together; no match is an empty page without a cursor', async () => {
    const kept = (await allPages('?search=transaction&severities=WARNING')).flatMap((p) => p.entries!);
    expect(kept).toEqual(
      all.filter((entry) => entry.severity === 'WARNING' && entry.message.includes('transaction')),
    );
    const none = await page('?search=no-such-text-anywhere');
    expect(none.entries).toEqual([]);
    expect(none).not.toHaveProperty('last_cursor');
  });

  test('a blank term is a 400', async () => {
    const answer = await call(tc, 'GET', `${logsPath}?search=%20`);
    expect(answer.status).toBe(400);
  });
});
