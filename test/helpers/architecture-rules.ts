// The rules of docs/architecture.md as data: the rooms (top-level folders), which rooms each one
// stands on, and the few known exceptions. test/unit/docs-architecture.test.ts checks every import of
// the tree against this table, and checks that the doc's table and picture say the same.
//
// A room may import the rooms it stands on, and whatever those stand on in turn (the floors below
// it). `typesFrom` allows `import type` only, and does not carry on to the rooms above.
//
// To add a room (a new top-level folder, say `step-kinds/`): add it to ROOMS with what it stands
// on, add it to `standsOn` of the rooms that use it, and add its row and its arrows to
// docs/architecture.md. The test names whatever is missing.

export const ROOMS = {
  cloud: { standsOn: [] },
  scripts: { standsOn: [] },
  dsl: { standsOn: ['cloud'] },
  'local-cloud': { standsOn: ['cloud'] },
  contract: { standsOn: ['dsl'] },
  activities: { standsOn: ['contract'] },
  workflows: { standsOn: ['contract'], typesFrom: ['activities'] },
  worker: { standsOn: ['activities', 'state'] },
  stack: { standsOn: ['worker', 'local-cloud', 'scripts'] },
  cluster: { standsOn: ['stack'] },
  rehearsal: { standsOn: ['stack'] },
  state: { standsOn: ['dsl'] },
  mcp: { standsOn: ['worker'] },
  cli: { standsOn: ['cluster', 'rehearsal', 'state', 'mcp'] },
  bin: { standsOn: ['cli'] },
  bench: { standsOn: ['cluster', 'rehearsal'] },
  test: { standsOn: ['cli', 'bench', 'workflows'] },
} as const satisfies Record<string, RoomRule>;

export type Room = keyof typeof ROOMS;

type NamedIn<Field extends 'standsOn' | 'typesFrom'> = {
  [R in Room]: (typeof ROOMS)[R] extends { readonly [F in Field]: readonly (infer Name)[] } ? Name : never;
}[Room];
type OnlyRooms<Names extends Room> = Names;
/** The rooms the table names; it does not compile when the table names a room it lacks. */
export type NamedRoom = OnlyRooms<NamedIn<'standsOn'> | NamedIn<'typesFrom'>>;

export interface RoomRule {
  /** The rooms directly below: this room may import them and everything they may import. */
  readonly standsOn: readonly string[];
  /** Rooms this one may take types from (`import type`), and nothing else. */
  readonly typesFrom?: readonly string[];
}

/** Where the files at the top of the tree (configuration: jest.config.js, eslint.config.mjs) are. */
export const TOP = '.';

/** Folders that are not source: installed, built or downloaded, never read by the check. */
export const NOT_SOURCE: readonly string[] = [
  '.git',
  'node_modules',
  'dist',
  '.tools',
  'releases',
  'coverage',
  'test-artifacts',
  '.tideline',
  'bench/build',
];

/** The rooms whose lines the CLI's share is measured without: the tests. */
export const NOT_COUNTED: readonly Room[] = ['test'];

/**
 * Packages that the workflow sandbox may load, besides the relative imports of workflow code.
 * Anything else reached from workflows/ (a Node built-in, another package) fails the check.
 */
export const SANDBOX_PACKAGES: readonly string[] = [
  '@temporalio/workflow',
  '@temporalio/common',
  '@temporalio/interceptors-opentelemetry/lib/workflow',
  '@opentelemetry/api',
  '@marcbachmann/cel-js',
  're2js',
];

/** An import the rules forbid but the tree still has, kept visible until it is fixed. */
export interface KnownException {
  /** A short name the test's messages use. */
  readonly name: string;
  /** The importing file, relative to the root. */
  readonly file: string;
  /** The room it imports from. */
  readonly imports: Room;
  /** Why it is there and what would remove it. */
  readonly why: string;
}

/**
 * The known exceptions to the import rules. The test fails when one is no longer needed, so
 * this list only ever shrinks to what the tree really has.
 */
export const KNOWN_EXCEPTIONS: readonly KnownException[] = [];

/** The most of the source lines (every room but test/) that cli/ may hold: it is the command. */
export const CLI_SHARE_LIMIT = 0.25;

/**
 * Known exception to CLI_SHARE_LIMIT: the share cli/ may hold until it shrinks (null: none). The
 * test fails once the share is back under the limit, so that this goes to null.
 */
export const CLI_SHARE_KNOWN_CEILING: number | null = null;
