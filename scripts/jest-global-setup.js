// Jest's global setup: compiles dist/ and bundles the workflows once for the whole test run, so
// the suites that start worker processes (buildDist in test/helpers/worker-process.ts) do not each
// rebuild it in their own Jest worker. Skipped when only unit tests were asked for by path.
'use strict';

const path = require('node:path');
const { spawnSync } = require('node:child_process');

const REPO_ROOT = path.resolve(__dirname, '..');
/** Set once dist/ is built; buildDist() in a test process then does nothing. */
const BUILT_VARIABLE = 'TIDELINE_TEST_DIST_BUILT';

/** The paths given on Jest's command line (its non-flag arguments), if any. */
function requestedPaths(globalConfig) {
  const patterns = globalConfig.testPathPatterns?.patterns ?? globalConfig.nonFlagArgs ?? [];
  return Array.isArray(patterns) ? patterns.map(String) : [];
}

function runNode(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.slice(-4000);
    return `${what} failed (exit ${result.status}):\n${output}`;
  }
  return undefined;
}

module.exports = async function globalSetup(globalConfig) {
  const paths = requestedPaths(globalConfig);
  if (paths.length > 0 && paths.every((p) => p.includes('test/unit') || p.includes('test\\unit'))) return;
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  // Type errors are npm test's typecheck's to report; what matters here is that dist/ was emitted.
  runNode([tsc, '-p', 'tsconfig.build.json'], 'tsc -p tsconfig.build.json');
  const bundle = runNode([path.join('scripts', 'bundle-workflows.js')], 'bundling the workflows');
  if (bundle !== undefined) throw new Error(bundle);
  process.env[BUILT_VARIABLE] = '1';
};
