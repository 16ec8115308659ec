// The shipped runbooks as files: every YAML file of runbooks/ but the test files, the lists of
// mutants and the state files that sit beside them.
import { readdirSync } from 'node:fs';

export function shippedRunbookFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter(
      (file) =>
        file.endsWith('.yaml') &&
        !file.endsWith('.test.yaml') &&
        !file.endsWith('.mutants.yaml') &&
        !file.endsWith('.state.yaml'),
    )
    .sort();
}
