// Generated service logs. Entry i of a service is written at `createdAt + i × intervalMs` and its
// text is a pure function of (service id, i), so pages are stable while new entries keep arriving:
// a cursor names the index below which the next (older) page starts.
//
// Filters (`search`, `severities`) narrow the sequence before it is paged, so a page holds up to
// 500 matching entries and its cursor continues the filtered sequence. The vendor's document does
// not say whether several search terms AND or OR; the local cloud keeps an entry only when its
// message contains EVERY term (case-insensitive), so adding a term narrows a search (tideline's
// LogsQuery documents the same). Severities are alternatives: an entry's severity must be one of
// them (case-insensitive).
import type { LogEntry, ServiceLogsResponse } from '../cloud/models';
import type { LogsConfig } from './config';
import { badRequest } from './errors';
import { hashString } from './random';
import type { ServiceRecord } from './state';

export const LOGS_PAGE_SIZE = 500;

const TEMPLATES: ReadonlyArray<readonly [string, string]> = [
  ['LOG', 'checkpoint starting: time'],
  ['LOG', 'checkpoint complete: wrote {n} buffers ({p}%); 0 WAL file(s) added, 0 removed, 1 recycled'],
  ['LOG', 'automatic vacuum of table "app.public.events": index scans: 1, pages: 0 removed, {n} remain'],
  ['LOG', 'automatic analyze of table "app.public.orders"'],
  ['LOG', 'connection received: host=10.0.{p}.{n} port=5432'],
  ['LOG', 'connection authorized: user=tsdbadmin database=tsdb application_name=psql'],
  ['LOG', 'disconnection: session time: 0:00:{p}.{n} user=tsdbadmin database=tsdb'],
  ['LOG', 'duration: {n}.{p} ms  statement: SELECT count(*) FROM metrics'],
  ['WARNING', 'there is no transaction in progress'],
  ['ERROR', 'relation "missing_table" does not exist at character {n}'],
  ['FATAL', 'terminating connection due to idle-in-transaction timeout'],
];

interface LogsQuery {
  cursor?: string | undefined;
  node?: number | undefined;
  since?: string | undefined;
  until?: string | undefined;
  search?: string[] | undefined;
  severities?: string[] | undefined;
}

type EntryFilter = (entry: LogEntry) => boolean;

/** The entries `search` and `severities` keep (every term in the message; any one severity). */
function entryFilter(query: LogsQuery): EntryFilter {
  const terms = (query.search ?? []).map((term) => term.toLowerCase());
  const severities = query.severities?.map((severity) => severity.toUpperCase());
  return (entry) => {
    if (severities !== undefined && !severities.includes(entry.severity.toUpperCase())) return false;
    const message = entry.message.toLowerCase();
    return terms.every((term) => message.includes(term));
  };
}

function entryAt(service: ServiceRecord, index: number, config: LogsConfig): LogEntry {
  if (index === 0) {
    return {
      timestamp: new Date(service.createdAt).toISOString(),
      severity: 'LOG',
      message: 'database system is ready to accept connections',
    };
  }
  const hash = hashString(`${service.id}:${index}`);
  const [severity, template] = TEMPLATES[hash % TEMPLATES.length]!;
  const message = template
    .replace('{n}', String((hash >>> 8) % 1000))
    .replace('{p}', String((hash >>> 20) % 100));
  return {
    timestamp: new Date(service.createdAt + index * config.intervalMs).toISOString(),
    severity,
    message,
  };
}

function encodeCursor(serviceId: string, before: number): string {
  return Buffer.from(JSON.stringify({ s: serviceId, b: before })).toString('base64url');
}

function decodeCursor(serviceId: string, cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      s?: unknown;
      b?: unknown;
    };
    if (
      parsed.s === serviceId &&
      typeof parsed.b === 'number' &&
      Number.isInteger(parsed.b) &&
      parsed.b >= 0
    ) {
      return parsed.b;
    }
  } catch {
    // fall through to the 400 below
  }
  throw badRequest("cursor: not a cursor of this service's logs; pass the lastCursor of a previous page");
}

/** One page of logs, newest first; `lastCursor` only when older entries remain. */
export function logsPage(
  service: ServiceRecord,
  query: LogsQuery,
  now: number,
  config: LogsConfig,
): ServiceLogsResponse {
  const newest = Math.max(0, Math.floor((now - service.createdAt) / config.intervalMs));
  let low = Math.max(0, newest - config.maxEntries + 1);
  let high = newest;
  if (query.since !== undefined) {
    low = Math.max(low, Math.ceil((Date.parse(query.since) - service.createdAt) / config.intervalMs));
  }
  if (query.until !== undefined) {
    high = Math.min(high, Math.floor((Date.parse(query.until) - service.createdAt) / config.intervalMs));
  }
  if (query.cursor !== undefined) high = Math.min(high, decodeCursor(service.id, query.cursor) - 1);

  const keep = entryFilter(query);
  const entries: LogEntry[] = [];
  let index = high;
  for (; index >= low && entries.length < LOGS_PAGE_SIZE; index--) {
    const entry = entryAt(service, index, config);
    if (keep(entry)) entries.push(entry);
  }
  // `index + 1` is the oldest entry looked at, the last one shown when the page is full. A cursor
  // only when an older entry passes the filters too.
  const oldestShown = index + 1;
  let olderMatch = false;
  for (; index >= low && !olderMatch; index--) olderMatch = keep(entryAt(service, index, config));
  return {
    logs: entries.map((entry) => entry.message),
    entries,
    ...(entries.length > 0 && olderMatch ? { lastCursor: encodeCursor(service.id, oldestShown) } : {}),
  };
}
