// The drift watcher of one state file: checks it, tells the worker's drift targets what drift
// appeared and what cleared since the previous check, sleeps its interval, and again.
//
// Why a long-lived workflow with a timer loop rather than a Temporal Schedule starting one check
// per interval: "once per change" needs the previous check's findings, and here they live in the
// watcher's own state — carried over continue-as-new as its input — so no outside store can lose
// them or be read stale, a failed check (the cloud down) keeps them untouched and notifies nothing,
// and the workflow id (one per state name) makes two watchers of one state impossible. Its
// interval is its input; `tideline drift-watch` starts, describes and stops it.
//
// Identity of a finding: (rule, service id). Only error and warning findings are drift. Workflow
// code: no I/O; the check and each delivery are activities.
import {
  ApplicationFailure,
  continueAsNew,
  log,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { TidelineActivities } from '../activities';
import {
  DRIFT_CHECK_ACTIVITY,
  DRIFT_DELIVER_ACTIVITY,
  DRIFT_STATE_UNKNOWN,
  driftWatchStatusQuery,
  findingKey,
  type DriftCheckResult,
  type DriftEvent,
  type DriftWatchInput,
  type DriftWatchStatus,
  type WatchedFinding,
} from '../contract/drift-watch-messages';
import { NOTIFY_TARGET_UNKNOWN } from '../contract/notification-messages';
import { summariseFailure } from './step-failure';

/** Checks per run before continue-as-new (about a dozen history events each). */
const CHECKS_PER_RUN = 100;

const checkState = proxyActivities<TidelineActivities>({
  startToCloseTimeout: '2m',
  summary: 'check the state file',
  retry: { maximumAttempts: 3, initialInterval: '2s', nonRetryableErrorTypes: [DRIFT_STATE_UNKNOWN] },
})[DRIFT_CHECK_ACTIVITY];

/** What changed between two checks: the findings new in `now`, and those gone from `before`. */
export function findingChanges(
  before: readonly WatchedFinding[],
  now: readonly WatchedFinding[],
): { appeared: WatchedFinding[]; cleared: WatchedFinding[] } {
  const had = new Set(before.map(findingKey));
  const has = new Set(now.map(findingKey));
  return {
    appeared: now.filter((finding) => !had.has(findingKey(finding))),
    cleared: before.filter((finding) => !has.has(findingKey(finding))),
  };
}

async function deliver(
  status: DriftWatchStatus,
  result: DriftCheckResult,
  event: DriftEvent,
  findings: WatchedFinding[],
): Promise<void> {
  if (findings.length === 0) return;
  const info = workflowInfo();
  const payload = {
    id: `${info.workflowId}/${status.checks}/${event}`,
    event,
    state: status.state,
    projectId: result.projectId,
    findings,
    open: result.findings.length,
    workflowId: info.workflowId,
    at: new Date(Date.now()).toISOString(),
  };
  const send = proxyActivities<TidelineActivities>({
    startToCloseTimeout: '15s',
    summary: `notify: ${event}`,
    retry: {
      maximumAttempts: result.retry.maximumAttempts,
      initialInterval: result.retry.initialIntervalMs,
      backoffCoefficient: 2,
      maximumInterval: '5m',
      nonRetryableErrorTypes: [NOTIFY_TARGET_UNKNOWN],
    },
  })[DRIFT_DELIVER_ACTIVITY];
  await Promise.all(
    result.targets.map((target) =>
      send({ target, payload }).then(
        () => {
          status.notified += 1;
        },
        (error: unknown) => {
          status.failed.push({ event, target, error: summariseFailure(error).message });
        },
      ),
    ),
  );
}

export async function driftWatchWorkflow(input: DriftWatchInput): Promise<void> {
  const status: DriftWatchStatus = {
    state: input.state,
    everyMs: input.everyMs,
    checks: input.checks ?? 0,
    findings: input.findings ?? [],
    notified: input.notified ?? 0,
    failed: [],
  };
  setHandler(driftWatchStatusQuery, () => status);
  const rounds = input.checksPerRun ?? CHECKS_PER_RUN;
  for (let round = 0; round < rounds && !workflowInfo().continueAsNewSuggested; round += 1) {
    let result: DriftCheckResult | undefined;
    try {
      result = await checkState({ state: input.state });
    } catch (error) {
      const failure = summariseFailure(error);
      // A state the worker does not watch will not become one by waiting.
      if (failure.type === DRIFT_STATE_UNKNOWN)
        throw ApplicationFailure.create({
          type: DRIFT_STATE_UNKNOWN,
          message: failure.message,
          nonRetryable: true,
        });
      status.lastError = failure.message;
      log.warn('drift check failed; the findings before it are kept', { error: failure.message });
    }
    if (result !== undefined) {
      const { appeared, cleared } = findingChanges(status.findings, result.findings);
      status.checks += 1;
      status.lastCheckAt = new Date(Date.now()).toISOString();
      delete status.lastError;
      status.findings = result.findings;
      await deliver(status, result, 'drift-appeared', appeared);
      await deliver(status, result, 'drift-cleared', cleared);
    }
    await sleep(input.everyMs);
  }
  await continueAsNew<typeof driftWatchWorkflow>({
    ...input,
    findings: status.findings,
    checks: status.checks,
    notified: status.notified,
  });
}
