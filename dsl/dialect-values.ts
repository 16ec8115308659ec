// Values the Cloud API names one way in spec.md and another in its current dialect (a
// time-series service is `NEUTRALDB` in one, `TIMESCALEDB` in the other). An expression that
// names only one of them matches nothing against an API answering in the other dialect.
import { TIME_SERIES_TYPES } from '../cloud/models';

const SAME_VALUE_GROUPS: readonly (readonly string[])[] = [TIME_SERIES_TYPES];

export interface OneSidedValue {
  /** The name the expression uses. */
  named: string;
  /** The names of the same value it leaves out. */
  missing: string[];
}

/** The first value the expression names under one dialect's name only, if any. */
export function oneSidedDialectValue(expression: string): OneSidedValue | undefined {
  const literals = new Set([...expression.matchAll(/(['"])([A-Z_]+)\1/g)].map((match) => match[2] ?? ''));
  for (const group of SAME_VALUE_GROUPS) {
    const named = group.filter((value) => literals.has(value));
    const first = named[0];
    if (first !== undefined && named.length < group.length) {
      return { named: first, missing: group.filter((value) => !literals.has(value)) };
    }
  }
  return undefined;
}
