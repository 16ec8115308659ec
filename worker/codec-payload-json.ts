// Temporal's remote codec protocol body: `{"payloads":[{"metadata":{"k":"<base64>"},"data":"<base64>"}]}`
// (the JSON form of temporal.api.common.v1.Payloads), to and from the SDK's Payload objects.
// Parsing is strict: anything else is a 400, and messages never quote the payloads.
import type { Payload } from '@temporalio/common';
import { z } from 'zod';

const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

const JsonPayload = z
  .object({
    metadata: z.record(z.string(), Base64).optional(),
    data: Base64.optional(),
  })
  .passthrough();

const JsonPayloads = z.object({ payloads: z.array(JsonPayload).max(10_000) }).passthrough();

export interface JsonPayloadShape {
  metadata: Record<string, string>;
  data: string;
}

export class PayloadJsonError extends Error {
  readonly code = 'CODEC_BAD_REQUEST';
}

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));
const base64 = (value: Uint8Array | null | undefined): string =>
  value ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') : '';

/** Parses a request body into SDK payloads; throws `PayloadJsonError` (no payload content in it). */
export function payloadsFromJson(body: string): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new PayloadJsonError('the body is not valid JSON');
  }
  const parsed = JsonPayloads.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new PayloadJsonError(
      `the body must be {"payloads":[{"metadata":{…},"data":"…"}]}${where}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data.payloads.map((payload) => ({
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, bytes(value)]),
    ),
    data: bytes(payload.data ?? ''),
  }));
}

export function payloadsToJson(payloads: readonly Payload[]): { payloads: JsonPayloadShape[] } {
  return {
    payloads: payloads.map((payload) => ({
      metadata: Object.fromEntries(
        Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, base64(value)]),
      ),
      data: base64(payload.data),
    })),
  };
}
