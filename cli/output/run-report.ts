// The end of a run as people and machines read it: outcome, failing step and reason, outputs
// (secret ones masked unless --show-secrets), pending approvals with the exact command to answer
// them, and the JSON shape of a run.
import type { JsonValue } from '../../dsl/expressions';
import type { ApprovalAuditEntry } from '../../contract/approval-messages';
import type { OperatorAction, PendingApproval, RunProgress, StepRecord } from '../../contract/run-messages';
import type { CliContext } from '../context';
import type { RunOutcome, RunStatusName } from '../run-observer';
import { orderedSteps } from '../run-observer';
import { currentInvocation, shellQuote } from './cli-invocation';
import { printable, printableDeep, quoted } from '../../cloud/printable';
import { compensatedResourceLines, createdNote } from './resource-notes';
import { stepElapsed } from './step-view';
import { SECRET_MASK } from '../../cloud/redact-text';
import { formatDuration, inlineValue, isoTime, type Style } from './style';

/**
 * A tideline command line that reaches the same server as this one (flags given are repeated),
 * started the way the user started this one (`node bin/tideline.js` until `npm link`).
 */
export function cliCommand(ctx: Pick<CliContext, 'globals'>, words: string[]): string {
  const flags: string[] = [];
  const { address, namespace, taskQueue, config } = ctx.globals;
  if (address !== undefined) flags.push('--address', address);
  if (namespace !== undefined) flags.push('--namespace', namespace);
  if (config !== undefined) flags.push('--config', config);
  void taskQueue; // a run keeps its task queue; status/approve do not need it
  // A run id or step key can carry any character: the line is printed, so it is escaped too.
  return printable([...currentInvocation(), ...words, ...flags].map(shellQuote).join(' '));
}

/** One operator action on a held run (or a hold timeout), for status and reports. */
export function actionLine(action: OperatorAction): string {
  // The name, reason and field names are the operator's (or anyone's who reached Temporal).
  const by = action.by !== null ? ` by ${printable(action.by)}` : '';
  const why = action.reason !== null ? `: ${printable(action.reason)}` : '';
  const names = (list: string[]): string => list.map(printable).join(', ');
  const inputs = action.inputs !== undefined ? ` (inputs changed: ${names(action.inputs)})` : '';
  const fields = action.with !== undefined ? ` (with changed: ${names(action.with)})` : '';
  const step = printable(action.stepKey);
  const what =
    action.action === 'hold-timeout'
      ? `hold of ${step} timed out; rolling back`
      : `${action.action} ${step}${by}${inputs}${fields}${why}`;
  return `${isoTime(action.at) ?? ''} ${what}`;
}

export function maskedOutputs(
  outputs: Record<string, JsonValue>,
  secretOutputs: string[],
  showSecrets: boolean,
): Record<string, JsonValue> {
  const shown: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(outputs)) {
    shown[name] = secretOutputs.includes(name) && !showSecrets && value !== null ? SECRET_MASK : value;
  }
  return shown;
}

export function approvalLines(
  ctx: Pick<CliContext, 'globals'>,
  workflowId: string,
  raw: PendingApproval,
  style: Style,
  now: number,
): string[] {
  // The message is the runbook's text with the run's inputs in it; names came with decisions.
  const pending = printableDeep(raw);
  const due =
    pending.deadline > 0
      ? ` (${pending.default}s automatically in ${formatDuration(Math.max(0, pending.deadline - now))})`
      : '';
  return [
    `  ${style.yellow('⏸')} approval needed at step ${style.bold(pending.stepKey)}: ${pending.message}${due}`,
    `    approve: ${cliCommand(ctx, ['approve', workflowId, '--step', raw.stepKey])}${raw.plan !== undefined ? ' (shows the plan and its fingerprint first)' : ''}`,
    `    reject:  ${cliCommand(ctx, ['reject', workflowId, '--step', raw.stepKey])}`,
    ...(pending.approvers === undefined
      ? []
      : [
          `    approvers: ${pending.approvers.join(', ')}; approved ${pending.approvedBy?.length ?? 0} of ${pending.minApprovals ?? 1}` +
            `${pending.approvedBy?.length ? ` (${pending.approvedBy.join(', ')})` : ''}` +
            `${pending.allowSelfApproval === false ? '; not by the starter' : ''}; signed decisions only`,
          `    every decision: ${cliCommand(ctx, ['audit', workflowId])}`,
        ]),
  ];
}

/** How long the run took, and how much of it went to waiting for another run's lock. */
function runDuration(progress: RunProgress | undefined, lockWait: RunOutcome['lockWait']): string {
  if (progress?.endedAt === undefined) return '';
  const waited =
    lockWait !== undefined ? ` (${formatDuration(lockWait.ms)} of it waiting for lock ${lockWait.key})` : '';
  return ` in ${formatDuration(progress.endedAt - progress.startedAt)}${waited}`;
}

const HEADLINE: Record<RunStatusName, string> = {
  running: 'is running',
  held: 'is held at a failed step',
  compensating: 'is compensating',
  succeeded: 'succeeded',
  failed: 'failed',
  cancelled: 'was cancelled',
  terminated: 'was terminated',
  'timed-out': 'timed out',
};

/** One decision on an approval step with approvers (audit, status, history). */
export function auditLine(entry: ApprovalAuditEntry): string {
  // Name, key id and comment are whatever the decision carried (an update sent raw to Temporal
  // bypasses the CLI), and a refusal's reason quotes the name: each is printed escaped, so a
  // decision stays one line and cannot print lines that look like other decisions.
  const name = entry.by !== null ? printable(entry.by) : '(no name)';
  const who = `${name}${entry.keyId !== null ? ` key ${printable(entry.keyId)}` : ''}`;
  const verdict = entry.accepted
    ? `counted${entry.via !== undefined ? ` (${printable(entry.via)})` : ''}`
    : `refused ${printable(entry.code ?? '')}: ${printable(entry.reason ?? '')}`;
  const comment = entry.comment !== null ? ` ${quoted(entry.comment)}` : '';
  return `${new Date(entry.at).toISOString()} ${printable(entry.stepKey)} ${entry.decision} by ${who}${comment}: ${verdict}`;
}

/** How the run's notifications went: a count, and each delivery that failed with its reason. */
export function notificationLines(progress: RunProgress | undefined, style: Style): string[] {
  const notifications = printableDeep(progress?.notifications);
  if (notifications === undefined) return [];
  const failed = notifications.failed;
  const lines = [
    `  notifications: ${notifications.delivered} delivered${failed.length > 0 ? `, ${failed.length} failed` : ''}`,
  ];
  for (const f of failed) lines.push(style.red(`    ${f.event} → ${f.target}: ${f.error}`));
  return lines;
}

/** The closing lines of a run (after its steps were shown). */
export function renderOutcome(
  ctx: Pick<CliContext, 'globals'>,
  raw: RunOutcome,
  style: Style,
  showSecrets: boolean,
): string {
  // Every name, key, value and message of a run is outside text; decisions escape their own.
  const outcome = printableDeep(raw);
  const name = outcome.runbook ?? outcome.workflowId;
  const ok = outcome.status === 'succeeded';
  const symbol = ok ? style.green('✓') : style.red('✗');
  const lines = [
    `${symbol} ${style.bold(name)} ${HEADLINE[outcome.status]}${runDuration(outcome.progress, outcome.lockWait)} (run ${outcome.workflowId})`,
  ];
  if (outcome.failure && !ok) {
    const where = outcome.failure.stepKey ? `step ${style.bold(outcome.failure.stepKey)}: ` : '';
    const reason =
      outcome.status === 'cancelled' && outcome.failure.type === 'CANCELLED'
        ? 'cancelled on request'
        : `${outcome.failure.type}: ${outcome.failure.message}`;
    lines.push(`  ${where}${reason}`);
  }
  const steps = outcome.progress?.steps ?? [];
  const undone = steps.filter((s) => s.status === 'compensated').map((s) => s.key);
  const notUndone = steps.filter((s) => s.status === 'compensation-failed');
  if (undone.length > 0) lines.push(`  compensated (undone): ${undone.join(', ')}`);
  // What the undone steps had created, and whether compensation removed it (the step records say).
  for (const line of compensatedResourceLines(steps)) lines.push(`    ${line}`);
  for (const step of notUndone) {
    const created = createdNote(step);
    const what = created === undefined ? '' : ` (${created})`;
    lines.push(
      style.red(
        `  compensation failed for ${step.key}${what}: ${step.error?.message ?? 'unknown reason'} — check for leftovers`,
      ),
    );
  }
  const outputs = Object.entries(maskedOutputs(outcome.outputs, outcome.secretOutputs, showSecrets));
  if (ok && outputs.length > 0) {
    const width = Math.max(...outputs.map(([key]) => key.length));
    lines.push('outputs:');
    for (const [key, value] of outputs) {
      const masked = value === SECRET_MASK && outcome.secretOutputs.includes(key);
      lines.push(
        `  ${key.padEnd(width)}  ${inlineValue(value)}${masked ? style.dim('  (secret: --show-secrets shows it)') : ''}`,
      );
    }
  }
  for (const action of outcome.progress?.actions ?? []) lines.push(`  operator: ${actionLine(action)}`);
  for (const entry of raw.progress?.approvals ?? []) lines.push(`  approval: ${auditLine(entry)}`);
  lines.push(...notificationLines(outcome.progress, style));
  if (!ok) lines.push(style.dim(`  timeline: ${cliCommand(ctx, ['history', raw.workflowId])}`));
  return `${lines.join('\n')}\n`;
}

export interface StepJson {
  key: string;
  id: string;
  kind: string;
  name?: string;
  status: string;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  error?: { type: string; message: string };
  waitingFor?: string;
  compensates?: string;
}

export function stepJson(step: StepRecord): StepJson {
  const json: StepJson = { key: step.key, id: step.id, kind: step.kind, status: step.status };
  if (step.name !== undefined) json.name = step.name;
  const started = isoTime(step.startedAt);
  const ended = isoTime(step.endedAt);
  if (started) json.startedAt = started;
  if (ended) json.endedAt = ended;
  const took = stepElapsed(step, Date.now());
  if (took !== undefined && step.status !== 'running') json.durationMs = took;
  if (step.error) json.error = step.error;
  if (step.waitingFor) json.waitingFor = step.waitingFor;
  if (step.compensates) json.compensates = step.compensates;
  return json;
}

/** The JSON document of a run (run, status, cancel). */
export function runJson(
  outcome: Pick<RunOutcome, 'workflowId' | 'runId' | 'status' | 'outputs' | 'secretOutputs' | 'failure'> & {
    runbook?: string;
    progress?: RunProgress;
  },
  showSecrets: boolean,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const progress = outcome.progress;
  const json: Record<string, unknown> = {
    workflowId: outcome.workflowId,
    runId: outcome.runId,
    runbook: outcome.runbook ?? progress?.runbook ?? null,
    status: outcome.status,
    startedAt: isoTime(progress?.startedAt) ?? null,
    endedAt: isoTime(progress?.endedAt) ?? null,
    steps: orderedSteps(progress?.steps ?? []).map(stepJson),
    outputs: maskedOutputs(outcome.outputs, outcome.secretOutputs, showSecrets),
    failure: outcome.failure ?? null,
    pendingApproval: progress?.pendingApproval ?? null,
    waitingForLock: progress?.waitingForLock ?? null,
    windowWait:
      progress?.windowWait === undefined
        ? null
        : { ...progress.windowWait, until: isoTime(progress.windowWait.until) ?? null },
    lockWaits: (progress?.lockWaits ?? []).map((wait) => ({
      key: wait.key,
      requestedAt: isoTime(wait.requestedAt) ?? null,
      acquiredAt: isoTime(wait.acquiredAt) ?? null,
    })),
    held: progress?.held ?? [],
    operatorActions: progress?.actions ?? [],
    approvals: progress?.approvals ?? [],
    notifications: progress?.notifications ?? null,
    ...extra,
  };
  return json;
}
