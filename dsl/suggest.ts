// "Did you mean …?" for misspelt actions, fields, inputs and step ids. Pure.

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
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
