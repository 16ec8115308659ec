// An in-process OTLP/HTTP trace receiver for tests: a plain node:http server on 127.0.0.1 (port 0)
// that answers every POST to /v1/traces with 200 and keeps each body as it came (to search the
// bytes for secrets) and its spans, decoded from OTLP JSON (the worker's exporter sends JSON).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type OtlpValue =
  | { stringValue: string }
  | { intValue: number | string }
  | { boolValue: boolean }
  | { doubleValue: number }
  | { arrayValue: { values?: OtlpValue[] } }
  | Record<string, never>;

interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: OtlpKeyValue[] }[];
}

interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** A received span with its attributes as a plain object and its resource's attributes beside. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number; message?: string };
}

function plain(value: OtlpValue): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('boolValue' in value) return value.boolValue;
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(plain);
  return undefined; // an empty value: the attribute was set to nothing
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  /** Every request body received so far, as sent. */
  bodies(): Buffer[];
  spans(): ReceivedSpan[];
  /** Request paths that were not POST /v1/traces (none expected). */
  strayRequests(): string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: Buffer[] = [];
  const spans: ReceivedSpan[] = [];
  const stray: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        stray.push(`${request.method} ${request.url}`);
        response.writeHead(404).end();
        return;
      }
      bodies.push(body);
      const traces = JSON.parse(body.toString('utf8')) as OtlpTraces;
      for (const resourceSpans of traces.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId:
                span.parentSpanId === undefined || span.parentSpanId === '' ? undefined : span.parentSpanId,
              name: span.name,
              attributes: attributesOf(span.attributes),
              resource,
              status: span.status ?? {},
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies: () => [...bodies],
    spans: () => [...spans],
    strayRequests: () => [...stray],
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
