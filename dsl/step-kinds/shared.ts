// Pieces several step kinds' language facets share. Pure and sandbox-safe.
import type { JsonValue } from '../expressions';
import { parseDuration } from '../durations';
import type { DurationValue } from '../definition';
import { hasTemplate } from '../templates';

/** A step's `with` as normalised: a copy, `{}` when not written. */
export function withInput(value: Record<string, unknown> | undefined): Record<string, JsonValue> {
  return { ...((value ?? {}) as Record<string, JsonValue>) };
}

/** A literal duration in milliseconds; a template stays as written for the interpreter. */
export function durationValue(text: string): DurationValue {
  return hasTemplate(text) ? text : parseDuration(text);
}

/** No messages, rules or generated ids: what most kinds have. */
export const NONE = {
  messages: () => [],
  inputProblems: () => [],
  problems: () => [],
  generatedIds: () => [],
} as const;

export class NormaliseError extends Error {
  readonly code = 'RUNBOOK_NORMALISE';
  constructor(message: string) {
    super(message);
    this.name = 'NormaliseError';
  }
}
