// Files for the paths a command is given: a file as given, a folder as every file under it whose
// name matches (sorted, so runs are repeatable; hidden folders and node_modules skipped). A path
// that does not exist is reported, not dropped.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function under(dir: string, matches: (name: string) => boolean): string[] {
  const found: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.'))
      found.push(...under(full, matches));
    else if (entry.isFile() && matches(entry.name)) found.push(full);
  }
  return found;
}

/**
 * Absolute files for the paths given (relative to `cwd`), the paths that do not exist, and the
 * folders given with no matching file under them.
 */
export function expandPaths(
  paths: readonly string[],
  cwd: string,
  matches: (name: string) => boolean,
): { files: string[]; missing: string[]; empty: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  const empty: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      missing.push(given);
      continue;
    }
    const found = isDirectory ? under(absolute, matches) : [absolute];
    if (found.length === 0) empty.push(given);
    for (const file of found) if (!files.includes(file)) files.push(file);
  }
  return { files, missing, empty };
}
