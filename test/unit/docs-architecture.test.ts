// docs/architecture.md kept true: every import of the tree against the rules table
// (test/helpers/architecture-rules.ts), the doc's table and picture against the same table, and
// the checker itself refusing made-up trees that cross each line.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  checkCliShare,
  checkMutualImports,
  checkRules,
  checkTree,
  cliShare,
  crossingImports,
  formatViolation,
  TREE_RULES,
  type Rules,
  type Violation,
} from '../helpers/architecture-check';
import { NOT_SOURCE, ROOMS, type RoomRule } from '../helpers/architecture-rules';
import type { SourceFile } from '../helpers/import-graph';

const ROOT = path.resolve(__dirname, '..', '..');
const DOC = 'docs/architecture.md';
const RULES_FILE = 'test/helpers/architecture-rules.ts';
const SOURCE = /\.(ts|js|mjs|cjs)$/;

function treeFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.includes(relative) && entry.name !== 'node_modules') walk(relative);
      } else if (entry.isFile() && SOURCE.test(entry.name)) {
        files.push({ path: relative, text: readFileSync(path.join(ROOT, relative), 'utf8') });
      }
    }
  };
  walk('');
  return files;
}

function report(violations: readonly Violation[]): string[] {
  return violations.map(formatViolation);
}

/** A made-up file: its lines joined. */
function file(filePath: string, ...lines: string[]): SourceFile {
  return { path: filePath, text: lines.join('\n') };
}

/** Room → what the doc's table says it stands on, and takes types from. */
function docTable(markdown: string): Map<string, { standsOn: string[]; typesFrom: string[] }> {
  const section = markdown.split('\n## The rooms')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, { standsOn: string[]; typesFrom: string[] }>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const room = /^`([a-z-]+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (room === undefined) continue;
    const standsOn: string[] = [];
    const typesFrom: string[] = [];
    for (const part of (cells[3] ?? '').split(';')) {
      const names = [...part.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1] ?? '');
      (part.trim().startsWith('types only from') ? typesFrom : standsOn).push(...names);
    }
    rows.set(room, { standsOn: standsOn.sort(), typesFrom: typesFrom.sort() });
  }
  return rows;
}

/** The arrows of the doc's mermaid picture, as `from --> to` and `from -.-> to` (types only). */
function docArrows(markdown: string): string[] {
  const block = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '';
  const arrows: string[] = [];
  for (const line of block.split('\n')) {
    const match = /^\s*(\w+)(?:\[[^\]]*\])?\s*(-->|-\.->)(?:\|[^|]*\|)?\s*(\w+)/.exec(line);
    if (match === null) continue;
    const [, from = '', arrow = '', to = ''] = match;
    arrows.push(`${from.replace(/_/g, '-')} ${arrow} ${to.replace(/_/g, '-')}`);
  }
  return arrows.sort();
}

function tableArrows(rooms: Readonly<Record<string, RoomRule>>): string[] {
  return Object.entries(rooms)
    .flatMap(([room, rule]) => [
      ...rule.standsOn.map((below) => `${room} --> ${below}`),
      ...(rule.typesFrom ?? []).map((typed) => `${room} -.-> ${typed}`),
    ])
    .sort();
}

describe('the tree keeps to docs/architecture.md', () => {
  const files = treeFiles();

  it('reads the source of every room, and nothing installed or built', () => {
    const paths = new Set(files.map((each) => each.path));
    for (const expected of ['cli/main.ts', 'workflows/index.ts', 'bin/tideline.js', 'scripts/tools-dir.js'])
      expect(paths).toContain(expected);
    expect([...paths].filter((each) => /(^|\/)(node_modules|dist|\.tools)\//.test(each))).toEqual([]);
    expect(crossingImports(files).length).toBeGreaterThan(1000);
  });

  it('has a rules table that names only its rooms and stands on no circle', () => {
    expect(report(checkRules(TREE_RULES, RULES_FILE))).toEqual([]);
  });

  it('imports across rooms only downwards, with no pair of rooms importing each other', () => {
    expect(report(checkTree(TREE_RULES, files))).toEqual([]);
  });

  it('keeps cli/ within its share of the product', () => {
    expect(report(checkCliShare(cliShare(files)))).toEqual([]);
  });

  it("has the doc's table of rooms say what the rules table says", () => {
    const doc = docTable(readFileSync(path.join(ROOT, DOC), 'utf8'));
    const rules = new Map(
      Object.entries(ROOMS as Readonly<Record<string, RoomRule>>).map(([room, rule]) => [
        room,
        { standsOn: [...rule.standsOn].sort(), typesFrom: [...(rule.typesFrom ?? [])].sort() },
      ]),
    );
    expect(Object.fromEntries(doc)).toEqual(Object.fromEntries(rules));
  });

  it("has the doc's picture draw exactly the rules table's arrows", () => {
    expect(docArrows(readFileSync(path.join(ROOT, DOC), 'utf8'))).toEqual(tableArrows(ROOMS));
  });
});

describe('the architecture check refuses', () => {
  const fail = (files: SourceFile[], rules: Rules = TREE_RULES) => report(checkTree(rules, files));

  it('an import from a floor below of a room above, naming file, line and rule', () => {
    const files = [
      file('cloud/client.ts', "import { z } from 'zod';", "import { main } from '../cli/main';"),
      file('cli/main.ts'),
    ];
    expect(fail(files)).toEqual([
      expect.stringMatching(
        /^cloud\/client\.ts:2: an import of '\.\.\/cli\/main': cloud\/ may not import cli\/ .*\[import-floors\]$/,
      ),
    ]);
  });

  it('the product importing test/ or bench/, in every form of import', () => {
    const files = [
      file('stack/a.ts', "import { x } from '../test/helpers/x';"),
      file('worker/b.ts', "export { y } from '../bench/y';"),
      file('scripts/c.js', "const z = require('../test/helpers/z.ts');"),
      file('rehearsal/d.ts', "const w = await import('../bench/w');"),
      file('cluster/e.ts', "type T = typeof import('../test/helpers/t');"),
      file('activities/f.ts', "import type { U } from '../bench/u';"),
      file('test/helpers/x.ts'),
      file('bench/y.ts'),
    ];
    expect(fail(files).map((line) => line.split(':').slice(0, 2).join(':'))).toEqual([
      'stack/a.ts:1',
      'worker/b.ts:1',
      'scripts/c.js:1',
      'rehearsal/d.ts:1',
      'cluster/e.ts:1',
      'activities/f.ts:1',
    ]);
  });

  it('anything but tests importing cli/, jest.mock included', () => {
    const files = [
      file('bench/run.ts', "jest.mock('../cli/context');", "import { bar } from '../stack/bar';"),
      file('test/unit/cli.test.ts', "import { main } from '../../cli/main';"),
    ];
    expect(fail(files)).toEqual([expect.stringMatching(/^bench\/run\.ts:1: .*bench\/ may not import cli\//)]);
  });

  it('workflow code importing activity values, but not activity types', () => {
    const files = [
      file(
        'workflows/ok.ts',
        "import type { A } from '../activities';",
        "import { type B } from '../activities/b';",
      ),
      file('workflows/mixed.ts', "import { type A, makeA } from '../activities/a';"),
      file('activities/index.ts'),
    ];
    expect(fail(files)).toEqual([
      expect.stringMatching(/^workflows\/mixed\.ts:1: an import of .* types only from activities\//),
    ]);
  });

  it('workflow code reaching a Node built-in or another package through any room', () => {
    const files = [
      file(
        'workflows/run.ts',
        "import { parse } from '../dsl/parse';",
        "import type { Stats } from 'node:fs';",
      ),
      file('dsl/parse.ts', "import { read } from '../cloud/read';", "import { z } from 're2js';"),
      file('cloud/read.ts', "import { readFileSync } from 'fs';", "import axios from 'axios';"),
      file('cloud/unreached.ts', "import { readFileSync } from 'node:fs';"),
    ];
    expect(fail(files)).toEqual([
      "cloud/read.ts:1: 'fs' is a Node built-in, and workflow code loads this file (workflows/run.ts → dsl/parse.ts → cloud/read.ts) [sandbox-safe]",
      "cloud/read.ts:2: 'axios' is not a sandbox package, and workflow code loads this file (workflows/run.ts → dsl/parse.ts → cloud/read.ts) [sandbox-safe]",
    ]);
  });

  it('two rooms importing each other, type-only imports counted', () => {
    const rules: Rules = {
      rooms: { a: { standsOn: [] }, b: { standsOn: ['a'] } },
      knownExceptions: [],
      sandboxPackages: [],
    };
    const crossings = crossingImports([
      file('a/x.ts', "import type { Y } from '../b/y';"),
      file('b/y.ts', "import { x } from '../a/x';"),
    ]);
    expect(report(checkMutualImports(rules, crossings))).toEqual([
      "a/x.ts:1: a/ and b/ import each other: here '../b/y', and b/y.ts:1 '../a/x' [no-mutual-imports]",
    ]);
  });

  it('a top-level folder the rules table does not know', () => {
    expect(fail([file('step-kinds/watch.ts', "import { z } from 'zod';")])).toEqual([
      expect.stringMatching(
        /^step-kinds\/watch\.ts: step-kinds\/ is not a room of the rules table .*\[room-in-table\]$/,
      ),
    ]);
  });

  it('a known exception once nothing needs it, and lets through the import it names', () => {
    const exception = {
      name: 'recorder',
      file: 'scripts/record.js',
      imports: 'test' as const,
      why: 'a test',
    };
    const rules: Rules = { ...TREE_RULES, knownExceptions: [exception] };
    expect(fail([file('scripts/record.js', "require('../test/helpers/recorder.ts');")], rules)).toEqual([]);
    expect(fail([file('scripts/record.js')], rules)).toEqual([
      expect.stringMatching(
        /known exception 'recorder' .* is no longer needed: remove it \[known-exception-needed\]$/,
      ),
    ]);
  });

  it('cli/ over its share, and a ceiling for it that is no longer needed', () => {
    const lines = (count: number) => Array.from({ length: count }, (_, at) => `export const x${at} = ${at};`);
    const measured = cliShare([
      file('cli/main.ts', ...lines(30), '', ''),
      file('cloud/client.ts', ...lines(70)),
      file('test/unit/big.test.ts', ...lines(500)),
    ]);
    expect(measured).toEqual({ cliLines: 30, productLines: 100, share: 0.3 });
    expect(report(checkCliShare(measured, 0.25, null))).toEqual([
      'cli: cli/ holds 30 of the 100 non-blank source lines (30.0%), more than 25.0% [cli-share]',
    ]);
    expect(checkCliShare(measured, 0.25, 0.31)).toEqual([]);
    expect(report(checkCliShare(measured, 0.3, 0.31))).toEqual([expect.stringContaining('set it to null')]);
  });

  it('a rules table that names a room it lacks, or stands on a circle', () => {
    const rules: Rules = {
      rooms: { a: { standsOn: ['c'] }, b: { standsOn: ['a'] }, c: { standsOn: ['b', 'nowhere'] } },
      knownExceptions: [],
      sandboxPackages: [],
    };
    expect(report(checkRules(rules, RULES_FILE))).toEqual([
      `${RULES_FILE}: a stands on itself through the rooms below it [floors-acyclic]`,
      `${RULES_FILE}: b stands on itself through the rooms below it [floors-acyclic]`,
      `${RULES_FILE}: c names nowhere, which is not a room of the table [rooms-exist]`,
      `${RULES_FILE}: c stands on itself through the rooms below it [floors-acyclic]`,
    ]);
  });
});
