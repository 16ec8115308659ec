// "Did you mean …?" for misspelt actions, fields, inputs and step ids. Pure.

/**
 * Edits between two names: insertions, deletions, substitutions and swaps of neighbouring letters
 * (optimal string alignment), so `lsit` is one edit from `list`, as a typist would count it.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      rows[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidate closest to `name`, if it is close enough to be a likely typo. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.max(2, Math.floor(name.length / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** A hint naming the closest candidate, or listing them when none is close. */
export function suggestionHint(name: string, candidates: readonly string[], what: string): string {
  const closest = closestName(name, candidates);
  if (closest !== undefined) return `did you mean \`${closest}\`?`;
  if (candidates.length === 0) return `there are no ${what}`;
  const listed = candidates.slice(0, 12).join(', ');
  return `${what}: ${listed}${candidates.length > 12 ? ', …' : ''}`;
}
