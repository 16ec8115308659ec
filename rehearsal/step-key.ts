// Step keys as runs report them name their step last: `each[2].stop`, `create/undo.delete_set`.

/** The id of the step a key names (its last part, without a loop index). */
export function stepIdOfKey(key: string): string {
  return /([^./[\]]+)(?:\[\d+\])?$/.exec(key)?.[1] ?? key;
}

/** Whether `key` is the step `name` (given as its key or its id). */
export function namesStep(key: string, name: string): boolean {
  return key === name || stepIdOfKey(key) === name;
}
