// Plan values from what is known before a run: templates that read only given, non-secret inputs
// are resolved; every other template stays as written, since its value exists only at run time.
import type { DurationValue } from '../../dsl/definition';
import { formatDuration } from '../../dsl/durations';
import type { JsonValue } from '../../dsl/expressions';
import { listReferences, hasTemplate, resolveDurationMs, resolveTemplates } from '../../dsl/templates';

/** Resolves what can be resolved from the known inputs; leaves other templates as written. */
export class PartialResolver {
  constructor(
    /** Inputs that have a value and are not secret. */
    private readonly known: Record<string, JsonValue>,
  ) {}

  private resolvable(text: string): boolean {
    try {
      return listReferences(text).every((found) =>
        found.references.every(
          (ref) => ref.root === 'inputs' && ref.path[0] !== undefined && ref.path[0] in this.known,
        ),
      );
    } catch {
      return false;
    }
  }

  value(value: JsonValue): JsonValue {
    if (typeof value === 'string') {
      if (!hasTemplate(value) || !this.resolvable(value)) return value;
      try {
        return resolveTemplates(value, { inputs: this.known });
      } catch {
        return value;
      }
    }
    if (Array.isArray(value)) return value.map((inner) => this.value(inner));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, this.value(inner)]));
    }
    return value;
  }

  duration(value: DurationValue | undefined): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'number') return formatDuration(value);
    if (!this.resolvable(value)) return value;
    try {
      return formatDuration(resolveDurationMs(value, { inputs: this.known }));
    } catch {
      return value;
    }
  }
}
