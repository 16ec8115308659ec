// Which test files `tideline test PATH…` runs: files as given, and every `*.test.yaml` under a
// folder. A path that does not exist is a problem of its own.
import { expandPaths } from '../dsl/path-expansion';

export const TEST_FILE_SUFFIX = '.test.yaml';

/** Absolute test files for the paths given (relative to `cwd`), and the paths that do not exist. */
export function findTestFiles(paths: readonly string[], cwd: string): { files: string[]; missing: string[] } {
  return expandPaths(paths, cwd, (name) => name.endsWith(TEST_FILE_SUFFIX));
}
