// The runbooks an MCP server offers: those of a folder (`tideline mcp --runbooks DIR`) or the
// worker configuration's catalogue (`catalog:`), found as the worker finds them (worker/catalog.ts).
// Each is read again whenever a tool uses it, so a plan always shows the file as it is now and a
// changed file changes the plan hash.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { definitionHash } from '../activities/definition-hash';
import type { RunbookDefinition } from '../dsl/definition';
import { checkRunbookFile } from '../dsl/loader';
import { loadCatalog, type CatalogEntry } from '../worker/catalog';
import { McpToolError } from './errors';

export interface LoadedRunbook {
  name: string;
  /** As shown to the agent: relative to where the runbooks were found. */
  file: string;
  definition: RunbookDefinition;
  /** The definition hash (activities/definition-hash.ts), as the worker's catalogue names it. */
  hash: string;
}

interface Offered {
  name: string;
  shown: string;
  absolute: string;
  root: string;
}

export class RunbookLibrary {
  private constructor(
    private readonly offered: readonly Offered[],
    /** Files that were not offered because they did not validate, one line each. */
    readonly problems: readonly string[],
  ) {}

  /** Every runbook (*.yaml but *.test.yaml) under `folder`. */
  static ofFolder(folder: string): RunbookLibrary {
    const root = path.resolve(folder);
    const problems: string[] = [];
    const { list } = loadCatalog({ runbooks: [root] }, root, problems);
    return new RunbookLibrary(
      offeredOf(list, root, () => root),
      problems,
    );
  }

  /** The worker's catalogue entries, whose files are relative to the configuration's folder. */
  static ofCatalogue(list: readonly CatalogEntry[], configDir: string): RunbookLibrary {
    return new RunbookLibrary(
      offeredOf(list, configDir, (absolute) => path.dirname(absolute)),
      [],
    );
  }

  /** The names offered, in order. */
  names(): string[] {
    return this.offered.map((entry) => entry.name);
  }

  /** Every runbook, read now; one that no longer validates is left out. */
  list(): LoadedRunbook[] {
    return this.offered.flatMap((entry) => {
      try {
        return [read(entry)];
      } catch (error) {
        if (error instanceof McpToolError) return [];
        throw error;
      }
    });
  }

  /** The runbook `name`, read now (MCP_RUNBOOK_UNKNOWN, MCP_RUNBOOK_INVALID). */
  load(name: string): LoadedRunbook {
    return read(this.entry(name));
  }

  /** The YAML of the runbook `name` as its file holds it now, checked as `load` checks it. */
  source(name: string): { file: string; text: string } {
    const entry = this.entry(name);
    read(entry);
    try {
      return { file: entry.shown, text: readFileSync(entry.absolute, 'utf8') };
    } catch {
      throw new McpToolError('MCP_RUNBOOK_INVALID', `${entry.shown} cannot be read`);
    }
  }

  private entry(name: string): Offered {
    const entry = this.offered.find((candidate) => candidate.name === name);
    if (entry === undefined) {
      throw new McpToolError(
        'MCP_RUNBOOK_UNKNOWN',
        `no runbook named "${name}" is offered here`,
        `offered: ${this.names().join(', ') || '(none)'}; list_runbooks shows them`,
      );
    }
    return entry;
  }
}

function offeredOf(
  list: readonly CatalogEntry[],
  baseDir: string,
  rootOf: (absolute: string) => string,
): Offered[] {
  return list.map(({ name, file }) => {
    const absolute = path.resolve(baseDir, file);
    return { name, shown: file, absolute, root: rootOf(absolute) };
  });
}

function read(entry: Offered): LoadedRunbook {
  let check: ReturnType<typeof checkRunbookFile>;
  try {
    check = checkRunbookFile(entry.absolute, { runbooksRoot: entry.root });
  } catch (error) {
    const why = (error as { code?: unknown }).code;
    throw new McpToolError(
      'MCP_RUNBOOK_INVALID',
      `${entry.shown} cannot be read (${typeof why === 'string' ? why : 'unreadable'})`,
    );
  }
  if (check.definition === undefined) {
    const first = check.problems[0];
    throw new McpToolError(
      'MCP_RUNBOOK_INVALID',
      `${entry.shown} no longer validates (${check.problems.length} problem(s)${first ? `; first: ${first.message}` : ''})`,
      `check it with \`tideline validate ${entry.shown}\``,
    );
  }
  return {
    name: entry.name,
    file: entry.shown,
    definition: check.definition,
    hash: definitionHash(check.definition),
  };
}
