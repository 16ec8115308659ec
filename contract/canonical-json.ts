// One JSON text per value, whatever the order its object keys were built in: keys sorted, absent
// (undefined) fields dropped, as JSON.stringify drops them. What a hash or a signature covers, so
// the CLI, the activities and the workflow read the same bytes from the same value. Pure.

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) sorted[key] = sortKeys(field);
  }
  return sorted;
}
