// Worker processes of a real earlier release (built from its commit by scripts/setup-releases.js
// into .tools/releases/<name>/) and of the code in the tree, and what a run's history says about
// which of them served it: each completed workflow task carries the build id of the worker that
// completed it, which the SDK derives from its workflow bundle
// (`@temporalio/worker@<version>+<sha256 of the bundle>`).
//
//   const previous = await previousRelease();          // builds it once, then cached
//   const old = await startReleaseWorker(previous, env);
//   const current = await startWorkerProcess({ env }); // test/helpers/worker-process.ts
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookDefinition } from '../../dsl/definition';
import type { RunReport } from '../../contract/run-messages';
import { startWorkerProcess } from '../../stack/worker-process';
import { ensureReleases, readManifest, type BuiltRelease } from '../../scripts/setup-releases';
import type { GuardedProcess } from './guarded-process';
import { spawnGuarded } from './guarded-process';
import { pollUntil } from './runbook-fixtures';
import { failedReport } from './runbook-stack';
import { REPO_ROOT, TEST_ENCRYPTION_KEYS } from './worker-process';

/** The newest release of releases/releases.json (the tree is the next one), built or cached. */
export async function previousRelease(): Promise<BuiltRelease> {
  const newest = readManifest().at(-1);
  if (newest === undefined) throw new Error('releases/releases.json names no release');
  const [built] = await ensureReleases({ names: [newest.name] });
  if (built === undefined) throw new Error(`release ${newest.name} was not built`);
  return built;
}

/** Starts the release's own `dist/worker/main.js`, from its own directory, and waits until it polls. */
export function startReleaseWorker(release: BuiltRelease, env: NodeJS.ProcessEnv): Promise<GuardedProcess> {
  return startWorkerProcess({
    entry: release.workerEntry,
    env: { TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, ...env },
    cwd: release.dir,
    label: `tideline worker of release ${release.name}`,
    spawn: spawnGuarded,
  });
}

/**
 * A runbook as the release's CLI sends it: the release's own copy of the file (`file` relative to
 * the repository; the tree's copy when the release did not ship it) read by the release's loader.
 */
export function loadReleaseRunbook(release: BuiltRelease, file: string): RunbookDefinition {
  const shipped = path.join(release.dir, file);
  // The release's compiled loader, found at run time: it is not part of this tree's sources.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loader = require(
    path.join(release.dir, 'dist', 'dsl', 'loader.js'),
  ) as typeof import('../../dsl/loader');
  return loader.loadRunbookFile(existsSync(shipped) ? shipped : path.join(REPO_ROOT, file));
}

/** The build id a worker running this prebuilt workflow bundle stamps on its workflow tasks. */
export function bundleBuildId(bundleFile: string): string {
  const sdk = JSON.parse(readFileSync(require.resolve('@temporalio/worker/package.json'), 'utf8')) as {
    version: string;
  };
  const hash = createHash('sha256').update(readFileSync(bundleFile)).digest('hex');
  return `@temporalio/worker@${sdk.version}+${hash}`;
}

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

export interface ServedBy {
  /** Build ids of the completed workflow tasks, in order, repeats collapsed. */
  buildIds: string[];
  /** Failed workflow tasks (a worker that could not replay the run, among others). */
  failedTasks: string[];
}

/** Which builds completed the run's workflow tasks, and which tasks failed and why. */
export async function servedBy(handle: WorkflowHandle): Promise<ServedBy> {
  const events: HistoryEvent[] = (await handle.fetchHistory()).events ?? [];
  const buildIds: string[] = [];
  const failedTasks: string[] = [];
  for (const event of events) {
    const completed = event.workflowTaskCompletedEventAttributes;
    const buildId = completed?.workerVersion?.buildId;
    if (buildId && buildIds.at(-1) !== buildId) buildIds.push(buildId);
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed) failedTasks.push(`${String(failed.cause)}: ${failed.failure?.message ?? ''}`);
  }
  return { buildIds, failedTasks };
}

/** How many activity tasks of this type the run has scheduled so far. */
export async function scheduledActivities(handle: WorkflowHandle, type: string): Promise<number> {
  const events: HistoryEvent[] = (await handle.fetchHistory()).events ?? [];
  return events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type).length;
}

/**
 * The run's report once it closes, succeeded or failed. A workflow task that fails (a worker that
 * cannot replay the run fails it again and again, and the run never closes) throws at once with
 * its cause instead of waiting for the deadline.
 */
export async function settleRun(
  name: string,
  handle: WorkflowHandle,
  timeoutMs: number,
  /** Failed tasks the run had already (on a worker that is gone), not counted. */
  knownFailedTasks = 0,
): Promise<RunReport> {
  const seen = await pollUntil(
    `run ${name} to close`,
    async () => ({
      status: (await handle.describe()).status.name,
      failed: (await servedBy(handle)).failedTasks.slice(knownFailedTasks),
    }),
    (now) => now.status !== 'RUNNING' || now.failed.length > 0,
    timeoutMs,
  );
  if (seen.failed.length > 0) throw new Error(`run ${name}: a workflow task failed: ${seen.failed[0]}`);
  return seen.status === 'COMPLETED' ? ((await handle.result()) as RunReport) : failedReport(handle);
}
