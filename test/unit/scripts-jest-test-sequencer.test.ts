// The order Jest runs the test files in (scripts/jest-test-sequencer.js): unit files first; within a
// tier failed-last-time first, then the slowest by Jest's own timings or else the committed list
// (test/timings.json), then files neither knows by size. And the list's refresh from a results file.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTimings, refreshedTimings, TIMINGS_FILE } from '../../scripts/test-timings';
import { REPO_ROOT } from '../helpers/worker-process';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- Jest loads the sequencer as CommonJS
const Sequencer = require('../../scripts/jest-test-sequencer.js') as new (options: object) => {
  sort(tests: FakeTest[]): Promise<FakeTest[]>;
};

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: { rootDir: string; cache: boolean }; hasteFS: { getSize(file: string): number } };
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'tideline-sequencer-'));
  mkdirSync(path.join(root, 'test'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeList(seconds: Record<string, number>): void {
  writeFileSync(path.join(root, TIMINGS_FILE), JSON.stringify({ about: 'test', seconds }));
}

/** Test files of a fresh clone: no Jest cache (`cache: false`), sizes as given. */
function freshClone(sizes: Record<string, number>): FakeTest[] {
  const context = {
    config: { rootDir: root, cache: false },
    hasteFS: { getSize: (file: string) => sizes[path.relative(root, file)] ?? 0 },
  };
  return Object.keys(sizes).map((file) => ({ path: path.join(root, file), context }));
}

async function order(tests: FakeTest[]): Promise<string[]> {
  const sorted = await new Sequencer({}).sort(tests);
  return sorted.map((test) => path.relative(root, test.path));
}

test('units first; integration files in the list slowest first, then the others by size', async () => {
  writeList({
    'test/integration/mutation.test.ts': 1186,
    'test/integration/upgrade.test.ts': 95,
    'test/integration/small-but-slow.test.ts': 300,
    'test/unit/slow-unit.test.ts': 40,
  });
  const tests = freshClone({
    'test/integration/upgrade.test.ts': 9_000,
    'test/integration/new-large.test.ts': 50_000,
    'test/integration/mutation.test.ts': 4_000,
    'test/integration/new-small.test.ts': 1_000,
    'test/integration/small-but-slow.test.ts': 100,
    'test/unit/big-unit.test.ts': 30_000,
    'test/unit/slow-unit.test.ts': 2_000,
  });
  expect(await order(tests)).toEqual([
    'test/unit/slow-unit.test.ts',
    'test/unit/big-unit.test.ts',
    'test/integration/mutation.test.ts',
    'test/integration/small-but-slow.test.ts',
    'test/integration/upgrade.test.ts',
    'test/integration/new-large.test.ts',
    'test/integration/new-small.test.ts',
  ]);
  // Jest's runner sees the listed times; an unknown file has none.
  expect(tests.find((t) => t.path.endsWith('mutation.test.ts'))?.duration).toBe(1_186_000);
  expect(tests.find((t) => t.path.endsWith('new-large.test.ts'))?.duration).toBeUndefined();
});

test('without a list, every file goes by size, as Jest orders a fresh clone', async () => {
  const tests = freshClone({
    'test/integration/b.test.ts': 10,
    'test/integration/a.test.ts': 30,
    'test/unit/u.test.ts': 5,
    'test/integration/c.test.ts': 20,
  });
  expect(await order(tests)).toEqual([
    'test/unit/u.test.ts',
    'test/integration/a.test.ts',
    'test/integration/c.test.ts',
    'test/integration/b.test.ts',
  ]);
});

test('a list that is not one is refused, naming the file and what it needs', async () => {
  writeFileSync(path.join(root, TIMINGS_FILE), JSON.stringify({ seconds: { 'test/x.test.ts': 'slow' } }));
  await expect(order(freshClone({ 'test/x.test.ts': 1 }))).rejects.toThrow(
    'test/timings.json: test/x.test.ts: seconds must be a number ≥ 0, not "slow"',
  );
  writeFileSync(path.join(root, TIMINGS_FILE), '{');
  expect(() => readTimings(root)).toThrow(/^test\/timings\.json: not JSON/);
});

test('the refresh takes the files that passed, keeps the others, and drops files that are gone', () => {
  for (const file of ['a.test.ts', 'b.test.ts', 'c.test.ts'])
    writeFileSync(path.join(root, 'test', file), '');
  const results = {
    testResults: [
      {
        name: path.join(root, 'test', 'a.test.ts'),
        status: 'passed',
        startTime: 1_000, // as `jest --json` writes it
        endTime: 13_345,
      },
      {
        name: path.join(root, 'test', 'b.test.ts'),
        status: 'failed',
        startTime: 1_000,
        endTime: 1_001,
      },
    ],
  };
  const current = { 'test/b.test.ts': 7, 'test/c.test.ts': 3, 'test/gone.test.ts': 9 };
  expect(refreshedTimings(root, current, results)).toEqual({
    'test/a.test.ts': 12.3,
    'test/b.test.ts': 7,
    'test/c.test.ts': 3,
  });
  expect(() => refreshedTimings(root, current, { numTotalTests: 1 })).toThrow(/not a Jest results file/);
});

test("the committed list names only test files that exist, the mutation suite's largest group the slowest", () => {
  const seconds = readTimings(REPO_ROOT);
  const files = Object.keys(seconds);
  expect(files.length).toBeGreaterThan(0);
  expect(refreshedTimings(REPO_ROOT, seconds, { testResults: [] })).toEqual(seconds);
  const slowest = files.reduce((a, b) => (seconds[b]! > seconds[a]! ? b : a));
  expect(slowest).toBe('test/integration/rehearsal-mutation-shipped-fork-and-promote.test.ts');
});
