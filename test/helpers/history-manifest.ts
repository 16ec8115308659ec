// The manifest of the replay gate's recorded histories (test/fixtures/histories/SHA256SUMS, the
// format `sha256sum -c` reads): one line per history file, its SHA-256 and name. Recorded histories
// are evidence of what released code did, so they are append-only: the recorder adds a line for
// each file it writes, and a unit test fails when a file differs from its line, has none, or a
// line's file is gone.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const HISTORY_FIXTURES_DIR = path.resolve(__dirname, '..', 'fixtures', 'histories');
export const HISTORY_SUFFIX = '.history.json';
export const MANIFEST_NAME = 'SHA256SUMS';

export function manifestFile(dir = HISTORY_FIXTURES_DIR): string {
  return path.join(dir, MANIFEST_NAME);
}

export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The manifest's lines as file name → hash (in the order they were added). */
export function parseManifest(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (match === null)
      throw new Error(`${MANIFEST_NAME} line ${index + 1} is not "<sha256>  <file>": ${line}`);
    const [, hash, name] = match;
    if (entries.has(name!)) throw new Error(`${MANIFEST_NAME} lists ${name} twice`);
    entries.set(name!, hash!);
  }
  return entries;
}

export function readManifest(dir = HISTORY_FIXTURES_DIR): Map<string, string> {
  const file = manifestFile(dir);
  return existsSync(file) ? parseManifest(readFileSync(file, 'utf8')) : new Map();
}

/** The history files in `dir`, sorted. */
export function historyFiles(dir = HISTORY_FIXTURES_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(HISTORY_SUFFIX))
    .sort();
}

/** Adds a just-written history file to the manifest; refuses a file the manifest already lists. */
export function appendToManifest(file: string): void {
  const dir = path.dirname(file);
  const name = path.basename(file);
  if (readManifest(dir).has(name)) throw new Error(`${MANIFEST_NAME} already lists ${name}`);
  appendFileSync(manifestFile(dir), `${sha256(file)}  ${name}\n`);
}

/** How the history files in `dir` differ from the manifest (empty: they match it exactly). */
export function manifestMismatches(dir = HISTORY_FIXTURES_DIR): string[] {
  const listed = readManifest(dir);
  const files = historyFiles(dir);
  const problems: string[] = [];
  for (const name of files) {
    const hash = listed.get(name);
    if (hash === undefined) problems.push(`${name} is not in ${MANIFEST_NAME}`);
    else if (hash !== sha256(path.join(dir, name))) problems.push(`${name} differs from its recorded hash`);
  }
  for (const name of listed.keys()) if (!files.includes(name)) problems.push(`${name} is listed but missing`);
  return problems;
}
