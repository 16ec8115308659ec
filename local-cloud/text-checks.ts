// Names reach logs, terminals and the state file: a NUL, CR/LF (a forged log line), an escape
// sequence or a lone UTF-16 surrogate (what invalid UTF-8 becomes once decoded leniently) in one
// makes trouble far from where it came in. Request bodies are checked here after their schema;
// bodies with invalid UTF-8 bytes are refused earlier, by the JSON parser (http-layer.ts).
import { badRequest } from './errors';

// C0 controls, DEL and C1 controls: finding them is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a name is unusable, or undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  if (CONTROL.test(name)) return 'must not contain control characters (NUL, tab, CR, LF, escape …)';
  if (LONE_SURROGATE.test(name)) return 'must be valid Unicode text (it holds a lone surrogate)';
  return undefined;
}

/** Throws a 400 naming the field when a body's `name` is unusable. */
export function checkBodyNames(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const name = (body as { name?: unknown }).name;
  if (typeof name !== 'string') return;
  const problem = nameProblem(name);
  if (problem !== undefined) throw badRequest(`name: ${problem}`);
}
