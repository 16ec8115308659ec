// The trace context a CLI start carries: TRACEPARENT and TRACESTATE from the environment, checked
// as W3C trace context, and the header Temporal's OpenTelemetry interceptors read on the worker.
import { defaultPayloadConverter } from '@temporalio/common';
import type { WorkflowStartInput } from '@temporalio/client';
import { TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { traceContextFromEnv, traceContextInterceptor } from '../../cli/trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

function read(env: NodeJS.ProcessEnv): {
  carrier: ReturnType<typeof traceContextFromEnv>;
  warnings: string[];
} {
  const warnings: string[] = [];
  return { carrier: traceContextFromEnv(env, (line) => warnings.push(line)), warnings };
}

test('no TRACEPARENT: no context and no warning', () => {
  expect(read({})).toEqual({ carrier: undefined, warnings: [] });
  expect(read({ TRACEPARENT: '  ' })).toEqual({ carrier: undefined, warnings: [] });
});

test('a W3C traceparent is taken (lower-cased), with tracestate when given', () => {
  expect(read({ TRACEPARENT: `00-${TRACE.toUpperCase()}-${SPAN}-01` })).toEqual({
    carrier: { traceparent: `00-${TRACE}-${SPAN}-01` },
    warnings: [],
  });
  expect(read({ TRACEPARENT: `00-${TRACE}-${SPAN}-00`, TRACESTATE: 'vendor=abc' }).carrier).toEqual({
    traceparent: `00-${TRACE}-${SPAN}-00`,
    tracestate: 'vendor=abc',
  });
});

test.each([
  ['not a trace context', 'hello'],
  ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
  ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
  ['another version', `01-${TRACE}-${SPAN}-01`],
  ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
])('%s is left out with a warning that says what a trace context looks like', (_case, value) => {
  const { carrier, warnings } = read({ TRACEPARENT: value });
  expect(carrier).toBeUndefined();
  expect(warnings).toEqual([expect.stringMatching(/^warning: TRACEPARENT is not a W3C trace context \(00-/)]);
  expect(warnings[0]).not.toContain(value);
});

test('the interceptor adds the context to a start, keeping the headers already there', async () => {
  const interceptor = traceContextInterceptor({ traceparent: `00-${TRACE}-${SPAN}-01` });
  const other = defaultPayloadConverter.toPayload('kept');
  let seen: WorkflowStartInput | undefined;
  const input = { headers: { other }, workflowType: 'runbookWorkflow' } as unknown as WorkflowStartInput;
  await interceptor.start!(input, async (given) => {
    seen = given;
    return 'run-id';
  });
  expect(seen?.headers.other).toBe(other);
  expect(defaultPayloadConverter.fromPayload(seen!.headers[TRACE_HEADER]!)).toEqual({
    traceparent: `00-${TRACE}-${SPAN}-01`,
  });
  expect(input.headers[TRACE_HEADER]).toBeUndefined();
});
