// Suites that need a tool outside Node (Go-built binaries, PostgreSQL, Chromium) decide whether
// they can run when their file is loaded, before any test is declared, and never pass without
// running: a missing tool is a reported skip whose reason is printed and written into the suite's
// name. With TIDELINE_REQUIRE_TOOLS=1 (set by .ci/run, whose setup provides every tool) a missing
// tool fails instead, with the same reason.
//
//   describeWithTools('the native cluster', clusterMissing(), () => { beforeAll(…); test(…); });
import { findGo, goVersionIsSufficient } from '../../scripts/setup-temporal';

export const REQUIRE_TOOLS_VARIABLE = 'TIDELINE_REQUIRE_TOOLS';

/** Whether a missing tool must fail the run instead of skipping (TIDELINE_REQUIRE_TOOLS=1). */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[REQUIRE_TOOLS_VARIABLE] === '1';
}

/**
 * `describe(name, body)` when `missing` is undefined. Otherwise none of the body's hooks or tests
 * run: the suite is skipped with `missing` in its name and printed, or, in tools-required mode, it
 * holds only one test, which fails with the reason.
 */
export function describeWithTools(name: string, missing: string | undefined, body: () => void): void {
  if (missing === undefined) {
    describe(name, body);
    return;
  }
  if (toolsRequired()) {
    describe(name, () => {
      test('has the tools it needs', () => {
        throw new Error(`${missing} (${REQUIRE_TOOLS_VARIABLE}=1: a missing tool fails the run)`);
      });
    });
    return;
  }
  console.warn(`${name}: skipped: ${missing}`);
  describe.skip(`${name} [skipped: ${missing}]`, body);
}

/**
 * Why a Go-built tool can be neither used nor built here: undefined when `built` says it is in place
 * or a Go of at least 1.`minGoMinor` is installed (the suite's beforeAll then builds it, and a failed
 * build fails the suite).
 */
export function goToolMissing(what: string, built: boolean, minGoMinor: number): string | undefined {
  if (built) return undefined;
  const go = findGo(process.env);
  if (go !== undefined && goVersionIsSufficient(go.version, minGoMinor)) return undefined;
  const found = go === undefined ? 'no Go was found' : `the installed Go (${go.version}) is too old`;
  return `${what} is not built (npm test's pretest builds it) and ${found}: it needs Go >= 1.${minGoMinor}`;
}
