// The naming convention of test files (docs/testing.md, "Where a module's tests are"): a test file is
// `<room>-<module or topic>.test.ts`, where the room is a top-level entry of the repository and a
// module is named by its path inside the room with `/` as `-`. These functions read names only;
// test/unit/test-names.test.ts applies them to the tree.

/** The suffix every test file has (jest.config.js `testMatch`). */
export const TEST_SUFFIX = '.test.ts';

/**
 * The room a top-level entry of the repository stands for: its name in lower case, without a
 * leading dot and without extensions (`dsl` → `dsl`, `.ci` → `ci`, `README.md` → `readme`,
 * `docker-compose.yml` → `docker-compose`).
 */
export function roomOfEntry(entry: string): string {
  return entry.replace(/^\./, '').split('.')[0]!.toLowerCase();
}

/** The name a test file is known by: its file name without `.test.ts`. */
export function testName(fileName: string): string {
  return fileName.endsWith(TEST_SUFFIX) ? fileName.slice(0, -TEST_SUFFIX.length) : fileName;
}

/** Whether `name` is `prefix` itself or `prefix` followed by `-` and more. */
function startsWithPart(name: string, prefix: string): boolean {
  return name === prefix || name.startsWith(`${prefix}-`);
}

/** The room a test's name starts with (the longest that fits), or undefined when none does. */
export function roomOfTest(name: string, rooms: Iterable<string>): string | undefined {
  let found: string | undefined;
  for (const room of rooms) {
    if (startsWithPart(name, room) && (found === undefined || room.length > found.length)) found = room;
  }
  return found;
}

/**
 * The name a module's tests start with: its path from the root, without its extension, with `/`
 * as `-` (`dsl/step-kinds/watch.ts` → `dsl-step-kinds-watch`).
 */
export function moduleTestName(modulePath: string): string {
  return modulePath.replace(/\.[^./]+$/, '').replace(/\//g, '-');
}

/** Whether a test of that name is named after the module (its name, or its name and a topic). */
export function namesModule(name: string, modulePath: string): boolean {
  return startsWithPart(name, moduleTestName(modulePath));
}

/** The modules no test is named after, in the order given. */
export function modulesWithoutTests(modulePaths: readonly string[], testNames: readonly string[]): string[] {
  return modulePaths.filter((modulePath) => !testNames.some((name) => namesModule(name, modulePath)));
}

/** Names given to more than one module (`a/b-c.ts` and `a/b/c.ts`), each with its modules. */
export function sharedModuleNames(modulePaths: readonly string[]): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const modulePath of modulePaths) {
    const name = moduleTestName(modulePath);
    byName.set(name, [...(byName.get(name) ?? []), modulePath]);
  }
  return new Map([...byName].filter(([, paths]) => paths.length > 1));
}
