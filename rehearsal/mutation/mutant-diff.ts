// A mutant as a small diff of the runbook: the lines that differ between the original document
// and the mutated one (both written out the same way), with a few lines of context around them.

/** How many changed lines of each side are shown before the rest is counted. */
const MAX_SHOWN = 8;

export interface MutantDiff {
  /** The first line that differs, 1-based, in the original text as written out. */
  line: number;
  /** `- old` and `+ new` lines. */
  lines: string[];
}

function shown(prefix: string, lines: readonly string[]): string[] {
  const kept = lines.slice(0, MAX_SHOWN).map((line) => `${prefix} ${line}`);
  if (lines.length > MAX_SHOWN) kept.push(`${prefix} … (${lines.length - MAX_SHOWN} more lines)`);
  return kept;
}

export function mutantDiff(original: string, mutated: string): MutantDiff {
  const before = original.split('\n');
  const after = mutated.split('\n');
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return {
    line: head + 1,
    lines: [
      ...shown('-', before.slice(head, before.length - tail)),
      ...shown('+', after.slice(head, after.length - tail)),
    ],
  };
}
