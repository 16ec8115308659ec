// The last gate before a span leaves the worker: every span (the worker's own and those the
// workflow sandbox hands over through its sink) passes through here on its way to the exporter.
// tideline's spans carry only names, keys, codes and numbers by construction; this keeps it so for
// what it does not write itself. Error messages and stack traces (which may quote a request, and
// which the history keeps only encrypted) are dropped, leaving the error's type; attributes named
// like a secret or a credential (cloud/secret-fields.ts) are dropped; and the worker's configured
// secrets (the projects' secret keys and tokens, the Temporal API key) are redacted from every
// remaining string (cloud/redact.ts).
import type { Attributes, AttributeValue, Context, Link } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { createRedactor } from '../cloud/redact';
import { CREDENTIAL_FIELD_NAME, SECRET_FIELD_NAME } from '../cloud/secret-fields';

/** Exception event attributes kept: the type says what failed without quoting anything. */
const EXCEPTION_TYPE = 'exception.type';

export type Redact = (text: string) => string;

function isPrimitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * A primitive or an array of primitives (and nulls), strings redacted; anything else (an object)
 * is dropped. The SDK's workflow exporter copies the whole workflow info onto each workflow span,
 * memo and search attributes included: only its plain fields (ids, type, queue, counts) go out.
 */
function scrubValue(value: unknown, redact: Redact): AttributeValue | undefined {
  if (typeof value === 'string') return redact(value);
  if (isPrimitive(value)) return value;
  if (Array.isArray(value) && value.every((item: unknown) => item === null || isPrimitive(item))) {
    return value.map((item: unknown) => (typeof item === 'string' ? redact(item) : item)) as AttributeValue;
  }
  return undefined;
}

/** The attributes without those named like a secret or holding objects, their strings redacted. */
export function scrubAttributes(attributes: Attributes, redact: Redact): Attributes {
  const kept: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (SECRET_FIELD_NAME.test(name) || CREDENTIAL_FIELD_NAME.test(name)) continue;
    const scrubbed = scrubValue(value, redact);
    if (scrubbed !== undefined) kept[name] = scrubbed;
  }
  return kept;
}

function scrubEvent(event: TimedEvent, redact: Redact): TimedEvent {
  const attributes = event.attributes ?? {};
  if (event.name === 'exception') {
    const type = attributes[EXCEPTION_TYPE];
    return {
      name: event.name,
      time: event.time,
      attributes: typeof type === 'string' ? { [EXCEPTION_TYPE]: redact(type) } : {},
    };
  }
  return { ...event, name: redact(event.name), attributes: scrubAttributes(attributes, redact) };
}

/** A copy of `span` that is safe to export; the original is left as it is. */
export function scrubSpan(span: ReadableSpan, redact: Redact): ReadableSpan {
  const links: Link[] = span.links.map((link) => ({
    ...link,
    ...(link.attributes !== undefined ? { attributes: scrubAttributes(link.attributes, redact) } : {}),
  }));
  return {
    name: redact(span.name),
    kind: span.kind,
    spanContext: () => span.spanContext(),
    ...(span.parentSpanId !== undefined ? { parentSpanId: span.parentSpanId } : {}),
    startTime: span.startTime,
    endTime: span.endTime,
    // The status message is the error's message: only the code goes out.
    status: { code: span.status.code },
    attributes: scrubAttributes(span.attributes, redact),
    links,
    events: span.events.map((event) => scrubEvent(event, redact)),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** Hands `next` a scrubbed copy of every span that ends. */
export class ScrubbingSpanProcessor implements SpanProcessor {
  readonly #next: SpanProcessor;
  readonly #redact: Redact;

  constructor(next: SpanProcessor, secrets: Iterable<string | undefined>) {
    this.#next = next;
    this.#redact = createRedactor(secrets);
  }

  onStart(span: Span, parentContext: Context): void {
    this.#next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.#next.onEnd(scrubSpan(span, this.#redact));
  }

  forceFlush(): Promise<void> {
    return this.#next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#next.shutdown();
  }
}
