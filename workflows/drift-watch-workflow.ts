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
// Identity of a finding: (rule, service id). Only error and warning findings are drift. Findings
// of rules with `repair.auto` are repaired by the watcher itself, once per appearance
// (drift-repairs.ts). Workflow code: no I/O; the check, each delivery and each repair are activities.
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
  type WatchedRepair,
} from '../contract/drift-watch-messages';
import { NOTIFY_TARGET_UNKNOWN } from '../contract/notification-messages';
import { PATCHES } from '../contract/patches';
import { carryRepairRuns, hasRepairWork, repairRound } from './drift-repairs';
import { hasPatch, startRelease } from './release-gate';
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
  repairs?: WatchedRepair[],
): Promise<void> {
  if (findings.length === 0 && (repairs === undefined || repairs.length === 0)) return;
  const info = workflowInfo();
  const payload = {
    id: `${info.workflowId}/${status.checks}/${event}`,
    event,
    state: status.state,
    projectId: result.projectId,
    findings,
    ...(repairs !== undefined && { repairs }),
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

/** The findings the repairs are for, from this check's findings. */
function repairedFindings(
  findings: readonly WatchedFinding[],
  repairs: readonly WatchedRepair[],
): WatchedFinding[] {
  const runs = new Set(repairs.map((repair) => repair.workflowId));
  return findings.filter((finding) => finding.repairRun !== undefined && runs.has(finding.repairRun));
}

/** Starts and reads the repairs of this check (rules with `repair.auto`) and notifies them. */
async function repairDrift(status: DriftWatchStatus, result: DriftCheckResult): Promise<void> {
  // A new command: a watcher that ran this check on a release without it replays without it.
  if (!hasRepairWork(status.findings, status.repairs) || !hasPatch(PATCHES.driftAutoRepair)) return;
  const round = await repairRound(status.state, status.checks, status.findings, status.repairs);
  status.findings = round.findings;
  status.repairs = round.repairs;
  await deliver(
    status,
    result,
    'repair-started',
    repairedFindings(round.findings, round.started),
    round.started,
  );
  await deliver(
    status,
    result,
    'repair-outcome',
    repairedFindings(round.findings, round.changed),
    round.changed,
  );
}

export async function driftWatchWorkflow(input: DriftWatchInput): Promise<void> {
  startRelease();
  const status: DriftWatchStatus = {
    state: input.state,
    everyMs: input.everyMs,
    checks: input.checks ?? 0,
    findings: input.findings ?? [],
    notified: input.notified ?? 0,
    failed: [],
    repairs: input.repairs ?? [],
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
      status.findings = carryRepairRuns(status.findings, result.findings);
      await deliver(status, result, 'drift-appeared', appeared);
      await deliver(status, result, 'drift-cleared', cleared);
      await repairDrift(status, result);
    }
    await sleep(input.everyMs);
  }
  await continueAsNew<typeof driftWatchWorkflow>({
    ...input,
    findings: status.findings,
    checks: status.checks,
    notified: status.notified,
    ...(status.repairs.length > 0 && { repairs: status.repairs }),
  });
}
