// The end of a switch over a closed set of kinds: a kind added without a case is a compile error.

/** Reached only if a value escaped its type (e.g. an older or newer record); never by typed code. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
