// Reading service logs across pages: the API answers newest first, at most one page at a time,
// and hands out a cursor (`last_cursor`, spec.md's `lastCursor`) while older entries remain.
import type { CallOptions, CloudCaller } from './client';
import { CloudApiError } from './errors';
import type { LogEntry, ServiceLogsResponse } from './models';
import type { ActionInput } from './operations';

export type LogsInput = ActionInput<'service.logs'>;

export interface LogPagesOptions extends CallOptions {
  /** Stop after this many pages even if more exist. */
  maxPages?: number | undefined;
}

/**
 * Yields each page of a service's logs, newest first, following `last_cursor` until it is absent.
 * A cursor the server repeats would loop forever, so it is reported as an invalid response.
 */
export async function* iterateLogPages(
  client: CloudCaller,
  input: LogsInput,
  options: LogPagesOptions = {},
): AsyncGenerator<ServiceLogsResponse, void, undefined> {
  const { maxPages, ...callOptions } = options;
  const seen = new Set<string>();
  let cursor = input.cursor;
  for (let page = 0; maxPages === undefined || page < maxPages; page++) {
    const answer = await client.call('service.logs', { ...input, cursor }, callOptions);
    yield answer;
    const next = answer.last_cursor;
    if (next === undefined || next === '') return;
    if (seen.has(next)) {
      throw new CloudApiError({
        code: 'CLOUD_API_INVALID_RESPONSE',
        action: 'service.logs',
        message:
          'service.logs: the Cloud API returned a cursor it had already returned; stopping to avoid a loop',
      });
    }
    seen.add(next);
    cursor = next;
  }
}

/** A log line: the structured entry when the API sent one, else just the legacy message text. */
export type LogLine = LogEntry | { message: string; severity?: undefined; timestamp?: undefined };

export interface CollectLogsOptions extends LogPagesOptions {
  /** Stop once this many entries are collected (no further page is fetched). */
  max?: number | undefined;
}

/** Collects log lines, newest first, across pages, up to `max` if given. */
export async function collectLogEntries(
  client: CloudCaller,
  input: LogsInput,
  options: CollectLogsOptions = {},
): Promise<LogLine[]> {
  const { max, ...pageOptions } = options;
  const lines: LogLine[] = [];
  if (max !== undefined && max <= 0) return lines;
  for await (const page of iterateLogPages(client, input, pageOptions)) {
    const pageLines: LogLine[] = page.entries ?? (page.logs ?? []).map((message) => ({ message }));
    for (const line of pageLines) {
      lines.push(line);
      if (max !== undefined && lines.length >= max) return lines;
    }
  }
  return lines;
}
