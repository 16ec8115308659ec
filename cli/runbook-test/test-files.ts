// Which test files `tideline test PATH…` runs: files as given, and every `*.test.yaml` under a
// folder (sorted, so runs are repeatable). A path that does not exist is a problem of its own.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const TEST_FILE_SUFFIX = '.test.yaml';

function under(dir: string): string[] {
  const found: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
      found.push(...under(full));
    else if (entry.isFile() && entry.name.endsWith(TEST_FILE_SUFFIX)) found.push(full);
  }
  return found;
}

/** Absolute test files for the paths given (relative to `cwd`), and the paths that do not exist. */
export function findTestFiles(paths: readonly string[], cwd: string): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      missing.push(given);
      continue;
    }
    for (const file of isDirectory ? under(absolute) : [absolute])
      if (!files.includes(file)) files.push(file);
  }
  return { files, missing };
}
