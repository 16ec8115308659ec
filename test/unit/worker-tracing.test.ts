// What tideline's spans may carry (names, keys, codes, numbers) and the scrubber every span passes
// before it leaves the worker; when the environment turns tracing on.
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { callSpanAttributes } from '../../activities/call-span';
import { createRedactor, REDACTED } from '../../cloud/redact';
import type { StepRecord } from '../../contract/run-messages';
import { describeTracing } from '../../worker/main';
import { ScrubbingSpanProcessor, scrubAttributes, scrubSpan } from '../../worker/span-scrubber';
import { DEFAULT_SERVICE_NAME, tracingSettingsFromEnv } from '../../worker/tracing';
import { stepSpanAttributes } from '../../workflows/step-tracing';

const SECRET_KEY = 'sk-very-secret-0123456789';

function span(overrides: Partial<ReadableSpan> = {}): ReadableSpan {
  return {
    name: 'RunActivity:service.updatePassword',
    kind: SpanKind.INTERNAL,
    spanContext: () => ({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 }),
    parentSpanId: 'c'.repeat(16),
    startTime: [1, 0],
    endTime: [2, 0],
    status: { code: SpanStatusCode.ERROR, message: `password hunter2 rejected; key ${SECRET_KEY}` },
    attributes: {},
    links: [],
    events: [],
    duration: [1, 0],
    ended: true,
    resource: new Resource({ 'service.name': 'test' }),
    instrumentationLibrary: { name: 'test' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...overrides,
  };
}

describe('call span attributes', () => {
  test('the operation, method, path template, status, attempt and the step from baggage', () => {
    expect(
      callSpanAttributes({
        action: 'service.updatePassword',
        attempt: 2,
        status: 409,
        errorCode: 'CLOUD_API_CONFLICT',
        baggage: { 'tideline.runbook': 'rotate-password', 'tideline.step': 'rotate', 'someone.else': 'x' },
      }),
    ).toEqual({
      'tideline.operation': 'service.updatePassword',
      'http.request.method': 'POST',
      'url.template': '/projects/{project_id}/services/{service_id}/updatePassword',
      'http.response.status_code': 409,
      'tideline.attempt': 2,
      'error.type': 'CLOUD_API_CONFLICT',
      'tideline.runbook': 'rotate-password',
      'tideline.step': 'rotate',
    });
  });

  test('outside an activity and before an answer: only what the catalogue says', () => {
    expect(callSpanAttributes({ action: 'service.get' })).toEqual({
      'tideline.operation': 'service.get',
      'http.request.method': 'GET',
      'url.template': '/projects/{project_id}/services/{service_id}',
    });
  });
});

test('step span attributes come from the step record, never its input or output', () => {
  const record: StepRecord = {
    key: 'rotate/undo.restore_password',
    id: 'restore_password',
    kind: 'call',
    status: 'running',
    action: 'service.updatePassword',
    compensates: 'rotate',
  };
  expect(stepSpanAttributes('rotate-password', record)).toEqual({
    'tideline.runbook': 'rotate-password',
    'tideline.step': 'rotate/undo.restore_password',
    'tideline.step.id': 'restore_password',
    'tideline.step.kind': 'call',
    'tideline.operation': 'service.updatePassword',
    'tideline.compensates': 'rotate',
  });
});

describe('the span scrubber', () => {
  const redact = createRedactor([SECRET_KEY]);

  test('drops secret-named and object attributes, redacts configured secrets in the rest', () => {
    expect(
      scrubAttributes(
        {
          password: 'hunter2',
          new_password: 'hunter2',
          secret_key: SECRET_KEY,
          api_key: 'k',
          bearerToken: 't',
          'tideline.step': 'rotate',
          'tideline.attempt': 1,
          ok: true,
          note: `sent with ${SECRET_KEY}`,
          list: ['a', SECRET_KEY, 3] as never,
          memo: { secret: 'x' } as never,
          mixed: [{ nested: 1 }] as never,
        },
        redact,
      ),
    ).toEqual({
      'tideline.step': 'rotate',
      'tideline.attempt': 1,
      ok: true,
      note: `sent with ${REDACTED}`,
      list: ['a', REDACTED, 3],
    });
  });

  test("drops error messages and stack traces, keeping the status code and the error's type", () => {
    const scrubbed = scrubSpan(
      span({
        events: [
          {
            name: 'exception',
            time: [1, 5],
            attributes: {
              'exception.type': 'CLOUD_API_BAD_REQUEST',
              'exception.message': 'password hunter2 too short',
              'exception.stacktrace': 'Error: password hunter2…',
            },
          },
          { name: 'retry', time: [1, 6], attributes: { why: `key ${SECRET_KEY}`, password: 'x' } },
        ],
      }),
      redact,
    );
    expect(scrubbed.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(scrubbed.events).toEqual([
      { name: 'exception', time: [1, 5], attributes: { 'exception.type': 'CLOUD_API_BAD_REQUEST' } },
      { name: 'retry', time: [1, 6], attributes: { why: `key ${REDACTED}` } },
    ]);
    expect(JSON.stringify(scrubbed)).not.toContain('hunter2');
    expect(scrubbed.spanContext().spanId).toBe('b'.repeat(16));
    expect(scrubbed.parentSpanId).toBe('c'.repeat(16));
  });

  test('the processor hands the next one the scrubbed copy and leaves the original alone', async () => {
    const ended: ReadableSpan[] = [];
    const next: SpanProcessor = {
      onStart: () => undefined,
      onEnd: (s) => void ended.push(s),
      forceFlush: () => Promise.resolve(),
      shutdown: () => Promise.resolve(),
    };
    const processor = new ScrubbingSpanProcessor(next, [SECRET_KEY, undefined]);
    const original = span({ name: `CloudApi:${SECRET_KEY}`, attributes: { secret: 'x', step: 'a' } });
    processor.onEnd(original);
    await processor.forceFlush();
    expect(ended.map((s) => [s.name, s.attributes])).toEqual([[`CloudApi:${REDACTED}`, { step: 'a' }]]);
    expect(original.attributes).toEqual({ secret: 'x', step: 'a' });
  });
});

describe('tracing settings from the environment', () => {
  test('off without an OTLP endpoint, or when the SDK or the traces exporter is turned off', () => {
    expect(tracingSettingsFromEnv({})).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettingsFromEnv({ ...on, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettingsFromEnv({ ...on, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  test('the base endpoint gets /v1/traces; the traces endpoint is used as given', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      serviceName: DEFAULT_SERVICE_NAME,
    });
    expect(
      tracingSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector/custom',
        OTEL_SERVICE_NAME: 'ops-worker',
      }),
    ).toEqual({ url: 'https://collector/custom', serviceName: 'ops-worker' });
    expect(DEFAULT_SERVICE_NAME).toBe('tideline-worker');
  });

  test('an endpoint that is not an http(s) URL is a configuration error that does not echo it', () => {
    const attempt = () => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318?token=abc' });
    expect(attempt).toThrow(expect.objectContaining({ code: 'TIDELINE_CONFIG_INVALID' }));
    expect(attempt).toThrow(/^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL$/);
  });

  test('the start-up line names the endpoint without credentials or query', () => {
    expect(
      describeTracing({ url: 'https://user:pw@collector:4318/v1/traces?token=abc', serviceName: 's' }),
    ).toBe('tracing: spans to https://collector:4318/v1/traces (OTLP/HTTP JSON) as service "s"');
  });
});
