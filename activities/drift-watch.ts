// The drift watcher's activities. `drift.check` checks one of the worker's state files by name
// (the worker read and validated them at start; a client only names one) through the worker's
// Cloud API clients and their per-project budget, and says which targets hear the watcher.
// `drift.deliver` posts a change — drift appeared, drift cleared — to one target with the same
// sending code as a run's notifications (notify.ts): JSON for a webhook, `{text}` for Slack.
// `drift.repair` starts the repair run of a rule with `repair.auto` and `drift.repairOutcomes`
// reads what became of such runs, both through the worker (worker/drift-repairs.ts).
import { ApplicationFailure } from '@temporalio/common';
import {
  DRIFT_CHECK_ACTIVITY,
  DRIFT_DELIVER_ACTIVITY,
  DRIFT_REPAIR_ACTIVITY,
  DRIFT_REPAIR_OUTCOMES_ACTIVITY,
  DRIFT_REPAIR_UNCONFIGURED,
  DRIFT_STATE_UNKNOWN,
  type DriftCheckInput,
  type DriftCheckResult,
  type DriftDeliverInput,
  type DriftNotificationPayload,
  type DriftRepairInput,
  type DriftRepairOutcomes,
  type DriftRepairOutcomesInput,
  type DriftRepairResult,
  type WatchedRepair,
} from '../contract/drift-watch-messages';
import { assertNever } from '../cloud/assert-never';
import type { DriftWatchSettings, NotificationSettings } from './deps';
import { configuredTarget, DEFAULT_NOTIFICATION_SETTINGS, postToTarget } from './notify';

/** A drift change as a Slack-compatible incoming webhook shows it. */
export function driftSlackMessage(payload: DriftNotificationPayload): { text: string } {
  const event = payload.event;
  let headline: string;
  switch (event) {
    case 'drift-appeared':
      headline = `:warning: drift in \`${payload.state}\` (project \`${payload.projectId}\`): ${payload.findings.length} new`;
      break;
    case 'drift-cleared':
      headline = `:white_check_mark: drift cleared in \`${payload.state}\` (project \`${payload.projectId}\`): ${payload.findings.length} fixed`;
      break;
    case 'repair-started':
      headline = `:wrench: repairing drift in \`${payload.state}\` (project \`${payload.projectId}\`): ${payload.repairs?.length ?? 0} run(s) started`;
      break;
    case 'repair-outcome':
      headline = `:clipboard: drift repairs in \`${payload.state}\` (project \`${payload.projectId}\`):`;
      break;
    default:
      return assertNever(event);
  }
  const lines = [headline];
  for (const repair of payload.repairs ?? [])
    lines.push(
      `• \`${repair.runbook}\` for \`${repair.service.name}\` (${repair.rules.join(', ')}), run ${repair.workflowId}: ${repairOutcomeText(repair.outcome)}`,
    );
  for (const finding of payload.findings)
    lines.push(
      `• \`${finding.service.name}\` (${finding.service.id}) ${finding.rule}: \`${finding.expected}\``,
    );
  lines.push(`${payload.open} finding(s) open`);
  return { text: lines.join('\n') };
}

/** A repair run's outcome in a few words. */
export function repairOutcomeText(outcome: WatchedRepair['outcome']): string {
  switch (outcome.kind) {
    case 'running':
      return 'running';
    case 'repaired':
      return 'succeeded';
    case 'refused':
      return `refused by the worker [${outcome.code}]: ${outcome.reason}`;
    case 'failed':
      return `${outcome.status} [${outcome.code}]: ${outcome.reason}`;
    case 'awaiting-approval':
      return `waiting for approval at step ${outcome.approval.stepKey}`;
    case 'awaiting-window':
      return `waiting for change window ${outcome.rule} until ${new Date(outcome.until).toISOString()}`;
    case 'held':
      return `held at failed step ${outcome.stepKey}: ${outcome.reason}`;
    case 'not-started':
      return `not started [${outcome.code}]: ${outcome.reason}`;
    case 'detached':
      return 'running';
    default:
      return assertNever(outcome);
  }
}

function unconfigured(): ApplicationFailure {
  return ApplicationFailure.create({
    type: DRIFT_REPAIR_UNCONFIGURED,
    message:
      'this worker starts no repair runs: its configuration names no drift.repairAs (the identity repairs start as)',
    nonRetryable: true,
  });
}

export function createDriftWatchActivities(
  drift: DriftWatchSettings | undefined,
  notifications: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS,
  fetchImpl: typeof fetch = fetch,
) {
  return {
    async [DRIFT_CHECK_ACTIVITY](input: DriftCheckInput): Promise<DriftCheckResult> {
      const checking = drift?.check(input.state);
      if (drift === undefined || checking === undefined) {
        throw ApplicationFailure.create({
          type: DRIFT_STATE_UNKNOWN,
          message: `state ${input.state} is not one this worker watches (drift.states of its configuration)`,
          nonRetryable: true,
        });
      }
      const result = await checking;
      return {
        ...result,
        targets: [...drift.targets],
        retry: {
          maximumAttempts: notifications.maxAttempts,
          initialIntervalMs: notifications.retryIntervalMs,
        },
      };
    },
    async [DRIFT_REPAIR_ACTIVITY](input: DriftRepairInput): Promise<DriftRepairResult> {
      if (drift?.repair === undefined) throw unconfigured();
      return drift.repair(input);
    },
    async [DRIFT_REPAIR_OUTCOMES_ACTIVITY](input: DriftRepairOutcomesInput): Promise<DriftRepairOutcomes> {
      if (drift?.repairOutcomes === undefined) throw unconfigured();
      return drift.repairOutcomes(input.workflowIds);
    },
    async [DRIFT_DELIVER_ACTIVITY](input: DriftDeliverInput): Promise<void> {
      const target = configuredTarget(notifications, input.target);
      const body = target.type === 'slack' ? driftSlackMessage(input.payload) : input.payload;
      await postToTarget(input.target, target, body, fetchImpl);
    },
  };
}
