// Test files are named by the convention of docs/testing.md: each starts with the room (top-level
// entry of the repository) it tests, no name is both a unit and an integration suite, and the
// doc's own example finds the tests it says it finds. How many modules have a test named after
// them is reported in a test's name; TIDELINE_LIST_UNTESTED=1 prints the others.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NOT_SOURCE, ROOMS, type Room } from '../helpers/architecture-rules';
import {
  modulesWithoutTests,
  moduleTestName,
  namesModule,
  roomOfEntry,
  roomOfTest,
  sharedModuleNames,
  TEST_SUFFIX,
  testName,
} from '../helpers/test-names';

const ROOT = path.resolve(__dirname, '..', '..');
const MODULE = /\.(ts|js|mjs|cjs)$/;

/** Repository paths of the files under `dir` whose names pass `keep`, sorted. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(ROOT, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!NOT_SOURCE.includes(child) && entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile() && keep(entry.name)) {
        found.push(child);
      }
    }
  };
  walk(dir);
  return found.sort();
}

const ROOM_NAMES: ReadonlySet<string> = new Set(
  readdirSync(ROOT)
    .filter((entry) => !NOT_SOURCE.includes(entry))
    .map(roomOfEntry),
);
const TEST_FILES = filesUnder('test', (name) => name.endsWith(TEST_SUFFIX));
const TEST_NAMES = [...new Set(TEST_FILES.map((file) => testName(path.basename(file))))];
const SOURCE_ROOMS = (Object.keys(ROOMS) as Room[]).filter((room) => room !== 'test');
const MODULES = SOURCE_ROOMS.flatMap((room) =>
  filesUnder(room, (name) => MODULE.test(name) && !name.endsWith('.d.ts')),
);
const UNTESTED = modulesWithoutTests(MODULES, TEST_NAMES);

describe('the names of test files', () => {
  test('each starts with the room it tests', () => {
    const unplaced = TEST_FILES.filter(
      (file) => roomOfTest(testName(path.basename(file)), ROOM_NAMES) === undefined,
    );
    expect({
      unplaced,
      hint:
        'name a test <room>-<module or topic>.test.ts (docs/testing.md); rooms: ' +
        [...ROOM_NAMES].sort().join(' '),
    }).toEqual(expect.objectContaining({ unplaced: [] }));
  });

  test('no name is both a unit and an integration suite', () => {
    const namesIn = (dir: string): Set<string> =>
      new Set(
        TEST_FILES.filter((file) => file.startsWith(`test/${dir}/`)).map((file) => path.basename(file)),
      );
    const units = namesIn('unit');
    expect([...namesIn('integration')].filter((name) => units.has(name))).toEqual([]);
  });

  test("the doc's example finds the tests of the module it names", () => {
    const doc = readFileSync(path.join(ROOT, 'docs/testing.md'), 'utf8');
    const example = /`ls test\/\*\/([a-z-]+)\*` finds\s+the\s+tests\s+of\s+`([a-z/.-]+)`/.exec(doc);
    expect(example).not.toBeNull();
    const [, pattern, modulePath] = example!;
    expect(MODULES).toContain(modulePath);
    expect(moduleTestName(modulePath!)).toBe(pattern);
    expect(TEST_NAMES.filter((name) => namesModule(name, modulePath!))).not.toEqual([]);
  });
});

describe('the rules of the names', () => {
  const rooms = ['dsl', 'local-cloud', 'cloud', 'docs', 'readme', 'ci'];

  test('a room is a top-level entry without its leading dot and extensions', () => {
    expect(['dsl', '.ci', 'README.md', 'docker-compose.yml', 'jest.config.js'].map(roomOfEntry)).toEqual([
      'dsl',
      'ci',
      'readme',
      'docker-compose',
      'jest',
    ]);
  });

  test('a test belongs to the longest room its name starts with, followed by - or nothing', () => {
    expect(roomOfTest('local-cloud-faults-metric-anomaly', rooms)).toBe('local-cloud');
    expect(roomOfTest('cloud-client-http', rooms)).toBe('cloud');
    expect(roomOfTest('docs', rooms)).toBe('docs');
    expect(roomOfTest('readme-examples', rooms)).toBe('readme');
    expect(roomOfTest('dslx-loader', rooms)).toBeUndefined();
    expect(roomOfTest('local-stack', rooms)).toBeUndefined();
    expect(roomOfTest('architecture', rooms)).toBeUndefined();
  });

  test('a test is named after a module by its path with / as -, alone or followed by a topic', () => {
    expect(moduleTestName('dsl/step-kinds/watch.ts')).toBe('dsl-step-kinds-watch');
    expect(moduleTestName('scripts/setup-temporal.js')).toBe('scripts-setup-temporal');
    expect(namesModule('dsl-step-kinds-watch', 'dsl/step-kinds/watch.ts')).toBe(true);
    expect(namesModule('dsl-step-kinds-watch-runs', 'dsl/step-kinds/watch.ts')).toBe(true);
    expect(namesModule('dsl-step-kinds-watchful', 'dsl/step-kinds/watch.ts')).toBe(false);
    expect(namesModule('dsl-step-kinds', 'dsl/step-kinds/watch.ts')).toBe(false);
    expect(
      modulesWithoutTests(
        ['cloud/client.ts', 'cloud/logs.ts', 'cloud/http.ts'],
        ['cloud-client-http', 'cloud-logs'],
      ),
    ).toEqual(['cloud/http.ts']);
  });

  test('two modules whose paths give the same name are found', () => {
    expect(sharedModuleNames(['dsl/step-kinds.ts', 'dsl/step/kinds.ts', 'dsl/loader.ts'])).toEqual(
      new Map([['dsl-step-kinds', ['dsl/step-kinds.ts', 'dsl/step/kinds.ts']]]),
    );
  });
});

describe('modules and the tests named after them', () => {
  test(`${MODULES.length - UNTESTED.length} of ${MODULES.length} modules have a test named after them; each module's name is its own`, () => {
    if (process.env.TIDELINE_LIST_UNTESTED === '1')
      process.stdout.write(`modules no test is named after (${UNTESTED.length}):\n${UNTESTED.join('\n')}\n`);
    expect(MODULES.length).toBeGreaterThan(0);
    expect(sharedModuleNames(MODULES)).toEqual(new Map());
  });
});
