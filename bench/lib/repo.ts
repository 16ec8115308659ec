// Where things are in the checkout, found by walking up to tideline's package.json, so the same
// code works from bench/*.ts (ts-jest, the smoke test) and from bench/build/bench/*.js.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as TemporalSetup from '../../scripts/setup-temporal';

function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown };
      if (pkg.name === 'tideline') return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`no tideline package.json above ${from}`);
  }
}

export const REPO_ROOT = findRepoRoot(__dirname);
export const RUNBOOKS_DIR = path.join(REPO_ROOT, 'runbooks');
export const PROVISION_RUNBOOK = path.join(RUNBOOKS_DIR, 'provision-production-service.yaml');
/** The product worker, compiled by `npm run build`. */
export const WORKER_ENTRY = path.join(REPO_ROOT, 'dist', 'worker', 'main.js');
/** The prebuilt workflow bundle written by `npm run build`. */
export const WORKFLOW_BUNDLE = path.join(REPO_ROOT, 'dist', 'workflow-bundle.js');
export const CLI_BIN = path.join(REPO_ROOT, 'bin', 'tideline.js');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

/** The compiled bench entry next to this module's compiled form (bench/build/bench/...). */
export function compiledBenchFile(relative: string): string {
  return path.join(REPO_ROOT, 'bench', 'build', 'bench', relative);
}

/**
 * The `temporal` CLI resolved by scripts/setup-temporal.js (`npm run setup`). The script is plain
 * JS outside the compiled tree, so it is loaded from the checkout at run time.
 */
export function temporalExecutable(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const setup = require(path.join(REPO_ROOT, 'scripts', 'setup-temporal.js')) as typeof TemporalSetup;
  return setup.readTemporalPath({ root: REPO_ROOT });
}
