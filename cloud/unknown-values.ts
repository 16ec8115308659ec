// Enum values the Cloud API sent that this version does not know (a new status, a new service
// type). They pass through as strings; each is reported once per value per process, to whichever
// listener the process installed (the worker's logger), so an operator learns of it without a flood.

/** What a listener hears: which enum (e.g. `service status`) and the value. */
export type UnknownValueListener = (what: string, value: string) => void;

const seen = new Set<string>();
let listener: UnknownValueListener = (what, value) => {
  console.warn(`tideline: the Cloud API sent a ${what} this version does not know: ${JSON.stringify(value)}`);
};

/** Installs where unknown values are reported; returns the previous listener. */
export function onUnknownValue(next: UnknownValueListener): UnknownValueListener {
  const previous = listener;
  listener = next;
  return previous;
}

/** Reports an unknown value unless this process already reported the same one for the same enum. */
export function noteUnknownValue(what: string, value: string): void {
  const key = `${what}\u0000${value}`;
  if (seen.has(key)) return;
  seen.add(key);
  listener(what, value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
