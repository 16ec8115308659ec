// Where the worker gets its workflow code: the bundle built at build time (fast start) when it is
// present and newer than the compiled code (or shipped in an installed package), otherwise the
// workflows module, bundled at start.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export type WorkflowSource = { workflowBundle: { codePath: string } } | { workflowsPath: string };

/** Next to the compiled `worker/` folder: `dist/workflow-bundle.js`. */
export const DEFAULT_WORKFLOW_BUNDLE = path.resolve(__dirname, '..', 'workflow-bundle.js');

/**
 * The same workflows with the tracing interceptors (worker/tracing.ts), for workers that trace:
 * `dist/workflow-bundle-traced.js`. A worker without tracing never loads it.
 */
export const TRACED_WORKFLOW_BUNDLE = path.resolve(__dirname, '..', 'workflow-bundle-traced.js');

/** The workflow interceptor module only the traced bundle holds (workflows/tracing-interceptors.ts). */
export function tracingWorkflowModules(): string[] {
  return [require.resolve('../workflows/tracing-interceptors')];
}

/** The workflows module (`workflows/index.ts`, or `dist/workflows/index.js` when compiled). */
export function defaultWorkflowsPath(): string {
  return require.resolve('../workflows');
}

/**
 * Modules every workflow run shares instead of loading its own copy (the SDK's `preloadModules`):
 * the runbook language — the CEL environment with its standard library, RE2, the parsed-expression
 * and compiled-pattern caches. They hold no per-run state (pure functions and caches keyed by
 * source text or by the run's own objects) and touch no workflow API at load time, which is what
 * sharing requires. Loaded once per worker instead of once per run, they take ~0.6 MB less memory
 * per cached run and no CPU to start a run (`npm run bench`, docs/performance.md). The first sets
 * the sandbox's stack-trace depth (workflows/stack-trace-limit.ts). The SDK freezes what they
 * export, so these modules must never mutate their exports. Resolved when a bundle is made (a
 * process running a prebuilt bundle may not ship the sources).
 */
export function workflowPreloadModules(): string[] {
  return [
    stackTraceLimitModule(),
    ...[
      'definition',
      'durations',
      'expression-scope',
      'expressions',
      'inputs',
      'list-element-reads',
      'output-reads',
      'templates',
    ].map((name) => require.resolve(`../dsl/${name}`)),
  ];
}

/**
 * The module that sets how deep stack traces in the workflow sandbox are (workflows/
 * stack-trace-limit.ts); first among the preloaded modules, so it holds before any workflow runs.
 */
export function stackTraceLimitModule(): string {
  return require.resolve('../workflows/stack-trace-limit');
}

function newestJsMtime(dir: string, skip: ReadonlySet<string>): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.has(full) || entry.name === 'node_modules') continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestJsMtime(full, skip));
    else if (entry.name.endsWith('.js')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether `file` lies in an npm-installed package (a `node_modules` folder), not a checkout. */
function isInstalledPackage(file: string): boolean {
  return path.resolve(file).split(path.sep).includes('node_modules');
}

export interface ResolvedWorkflowSource {
  source: WorkflowSource;
  /** Why this source was chosen, for the start-up log line. */
  reason: string;
}

export function resolveWorkflowSource(
  options: { bundlePath?: string; workflowsPath?: string; traced?: boolean } = {},
): ResolvedWorkflowSource {
  const bundlePath =
    options.bundlePath ?? (options.traced ? TRACED_WORKFLOW_BUNDLE : DEFAULT_WORKFLOW_BUNDLE);
  const bundleTime = mtimeOf(bundlePath);
  if (bundleTime !== undefined && isInstalledPackage(bundlePath)) {
    // An installed package is never rebuilt in place, and npm stamps its files with the time they
    // were unpacked, so their times say nothing about which was built first.
    return {
      source: { workflowBundle: { codePath: bundlePath } },
      reason: `prebuilt bundle ${bundlePath} of the installed package`,
    };
  }
  if (bundleTime !== undefined) {
    // A bundle older than any compiled file may miss changes: bundle afresh rather than run it.
    // Neither bundle counts as compiled code: they are written one after the other.
    const bundles = new Set([bundlePath, DEFAULT_WORKFLOW_BUNDLE, TRACED_WORKFLOW_BUNDLE]);
    const compiledTime = newestJsMtime(path.dirname(bundlePath), bundles);
    if (compiledTime <= bundleTime) {
      return {
        source: { workflowBundle: { codePath: bundlePath } },
        reason: `prebuilt bundle ${bundlePath}`,
      };
    }
    return {
      source: { workflowsPath: options.workflowsPath ?? defaultWorkflowsPath() },
      reason: `bundle ${bundlePath} is older than the compiled code; bundling at start`,
    };
  }
  return {
    source: { workflowsPath: options.workflowsPath ?? defaultWorkflowsPath() },
    reason: 'no prebuilt bundle; bundling at start',
  };
}
