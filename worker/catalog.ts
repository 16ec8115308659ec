// The worker's runbook catalogue: the definitions it runs, read at start from the folders and
// files its configuration names (`catalog:`), each validated like `tideline validate` does and
// named by its definition hash (activities/definition-hash.ts). A file that does not validate, or
// whose hash differs from the one it is pinned to, stops the worker: it never runs a catalogue it
// could not read whole.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CatalogSettings } from '../activities/deps';
import { definitionHash, shortHash } from '../activities/definition-hash';
import { checkRunbookFile } from '../dsl/loader';
import { isRunbookError } from '../dsl/problems';
import { STATE_FILE_NAME } from '../state/state-file-name';
import type { ParsedWorkerConfig } from './config-schema';

/** Runbook files in a folder (and its sub-folders), test, mutants and state files left out, sorted. */
function runbookFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...runbookFiles(full));
    else if (
      /\.ya?ml$/.test(entry.name) &&
      !/\.(test|mutants)\.ya?ml$/.test(entry.name) &&
      !STATE_FILE_NAME.test(entry.name)
    )
      found.push(full);
  }
  return found;
}

export interface CatalogEntry {
  name: string;
  file: string;
  hash: string;
}

/** Reads the catalogue; every problem is added to `problems` (file, what, how to fix). */
export function loadCatalog(
  section: ParsedWorkerConfig['catalog'],
  baseDir: string,
  problems: string[],
): CatalogSettings & { list: CatalogEntry[] } {
  if (section === undefined) return { mode: 'development', entries: new Map(), list: [] };
  const list: CatalogEntry[] = [];
  for (const [index, item] of (section.runbooks ?? []).entries()) {
    const given = typeof item === 'string' ? item : item.path;
    const pinned = typeof item === 'string' ? undefined : item.sha256;
    const where = path.resolve(baseDir, given);
    let files: string[];
    let folder: boolean;
    try {
      folder = statSync(where).isDirectory();
      files = folder ? runbookFiles(where) : [where];
    } catch (error) {
      problems.push(
        `catalog.runbooks[${index}]: ${given} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); give a runbook file or a folder of runbooks, relative to the configuration file`,
      );
      continue;
    }
    if (pinned !== undefined && folder) {
      problems.push(
        `catalog.runbooks[${index}]: sha256 pins one file, but ${given} is a folder; list the file itself with its sha256`,
      );
      continue;
    }
    if (files.length === 0) {
      problems.push(
        `catalog.runbooks[${index}]: ${given} holds no runbook (*.yaml); name a folder that does`,
      );
      continue;
    }
    for (const file of files) {
      const shown = path.relative(baseDir, file) || file;
      let check: ReturnType<typeof checkRunbookFile>;
      try {
        check = checkRunbookFile(file, { runbooksRoot: folder ? where : path.dirname(where) });
      } catch (error) {
        const why = isRunbookError(error) ? error.code : 'unreadable';
        problems.push(
          `catalog: ${shown} cannot be read as a runbook (${why}); check it with \`tideline validate ${shown}\``,
        );
        continue;
      }
      if (check.definition === undefined) {
        const first = check.problems[0];
        problems.push(
          `catalog: ${shown} is not a valid runbook (${check.problems.length} problem(s)${first ? `; first: ${first.message}` : ''}); check it with \`tideline validate ${shown}\``,
        );
        continue;
      }
      const hash = definitionHash(check.definition);
      if (pinned !== undefined && pinned !== hash) {
        problems.push(
          `catalog.runbooks[${index}]: ${shown} has definition hash ${shortHash(hash)}…, not the pinned ${shortHash(pinned)}…; review the change, then pin the new hash (tideline catalog list)`,
        );
        continue;
      }
      list.push({ name: check.definition.name, file: shown, hash });
    }
  }
  return {
    mode: section.development === true ? 'development' : 'catalog',
    entries: new Map(list.map((entry) => [entry.hash, { name: entry.name, file: entry.file }])),
    list,
  };
}
