// Opt-in OpenTelemetry tracing of the worker: on when OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, off otherwise — then nothing here is loaded into the
// workflow bundle, no provider is registered, and tideline's own spans (workflows/step-tracing.ts,
// activities/call-span.ts) are the OpenTelemetry API's no-ops. On, a run is one trace: the SDK's
// interceptors make the run's span and a span per activity (carrying the context from workflow to
// activity in headers), tideline adds a span per step and per Cloud API request, and every span
// leaves over OTLP/HTTP (JSON) through the scrubber (worker/span-scrubber.ts). Variables are read
// as OpenTelemetry defines them; OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TIMEOUT are
// read by the exporter itself from the process environment.
import { W3CBaggagePropagator, W3CTraceContextPropagator, CompositePropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { WorkerError } from './errors';
import { ScrubbingSpanProcessor } from './span-scrubber';

export const DEFAULT_SERVICE_NAME = 'tideline-worker';

export interface TracingSettings {
  /** Where spans are POSTed: the traces endpoint as given, or the base endpoint + `/v1/traces`. */
  url: string;
  serviceName: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** An http(s) URL, or TIDELINE_CONFIG_INVALID naming the variable (not echoing its value). */
function checkedUrl(url: string, variable: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new WorkerError('TIDELINE_CONFIG_INVALID', `${variable} must be an http:// or https:// URL`);
  }
  return url;
}

/**
 * The tracing settings `env` asks for, or undefined when tracing is off: no OTLP endpoint, or
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. The traces endpoint is used as given; the
 * base endpoint gets `/v1/traces`, as the OpenTelemetry specification says.
 */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  if (nonEmpty(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  if (nonEmpty(env.OTEL_TRACES_EXPORTER)?.toLowerCase() === 'none') return undefined;
  const serviceName = nonEmpty(env.OTEL_SERVICE_NAME) ?? DEFAULT_SERVICE_NAME;
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (traces !== undefined) {
    return { url: checkedUrl(traces, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), serviceName };
  }
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base === undefined) return undefined;
  const url = `${checkedUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/+$/, '')}/v1/traces`;
  return { url, serviceName };
}

/** What a traced worker adds to its options, and how to send what is left before it exits. */
export interface WorkerTracing {
  readonly settings: TracingSettings;
  readonly interceptors: WorkerInterceptors;
  readonly sinks: InjectedSinks<OpenTelemetrySinks>;
  /** Exports the spans still buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Registers a tracer provider for the process (spans of the activities and tideline's own) and
 * gives the worker options that trace workflows. `secrets` are redacted from every span as a last
 * guard (the worker's configured keys and tokens).
 */
export function startTracing(
  settings: TracingSettings,
  secrets: Iterable<string | undefined>,
): WorkerTracing {
  const resource = new Resource({ 'service.name': settings.serviceName });
  const processor = new ScrubbingSpanProcessor(
    new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url })),
    secrets,
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  });
  return {
    settings,
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    // Workflow spans come out of the sandbox through this sink, into the same scrubber.
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    shutdown: () => provider.shutdown(),
  };
}
