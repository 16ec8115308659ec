// The repair runs a drift watcher starts for rules with `repair.auto`, and reading what became of
// them. The worker decides everything: it checks its own state file again (the watcher names only
// the state, the service, the runbook and the rules), plans the repair as `tideline reconcile`
// plans it, and starts it as an ordinary top-level run on its own task queue, signed as the
// configured `drift.repairAs` — so admission verifies that starter like any signed start, and the
// catalogue, policies, change windows, locks and approvals apply. A finding that is no longer
// there, or whose rule does not say `repair.auto`, is not repaired. The run's id is derived from
// the drift as reconcile's repairs derive it (repair-run-id.ts), so a retried start, a second
// watcher round or a concurrent `tideline reconcile` joins the one run.
import { readFileSync } from 'node:fs';
import { createPublicKey, type KeyObject } from 'node:crypto';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { signStart } from '../activities/approval-signatures';
import { definitionHash } from '../activities/definition-hash';
import type { CatalogSettings } from '../activities/deps';
import { keyId, parsePublicKey, privateKeyFromPem } from '../activities/approval-keys';
import {
  DRIFT_STATE_UNKNOWN,
  type DriftRepairCode,
  type DriftRepairInput,
  type DriftRepairOutcomes,
  type DriftRepairResult,
  type WatchedRepair,
} from '../contract/drift-watch-messages';
import { endedOutcome, stoppedAt, type EndedRun } from '../contract/repair-outcome';
import { progressQuery, reportInFailure, type RunbookWorkflowInput } from '../contract/run-messages';
import { RUNBOOK_WORKFLOW_TYPE } from '../contract/workflow-types';
import type { JsonValue } from '../dsl/expressions';
import type { DriftReport } from '../state/drift-check';
import { planRepairs, type RepairProblemCode } from '../state/repair-plan';
import type { LoadedState } from '../state/state-file';
import type { ParsedWorkerConfig } from './config-schema';
import { warnIfOpenToOthers } from './file-permissions';
import { repairRunId, startOrJoinRepair } from './repair-run-id';

/** Who a watcher's repair runs start as: a registered approver and its private key. */
export interface RepairIdentity {
  by: string;
  key: KeyObject;
}

/** Where repair runs are started and read: the worker's own client and task queue. */
export interface RepairRunPlace {
  client: Client;
  taskQueue: string;
}

/**
 * `drift.repairAs` read at start: the key file loads and its public key is registered for `by`
 * under `approvals.keys` (else admission would call the starter unverified). Every watched state
 * with a rule that says `repair.auto` needs it. Problems are added to `problems`; a key file other
 * users can read is warned about through `notice`, as the worker's other secret files are.
 */
export function loadRepairIdentity(
  given: NonNullable<ParsedWorkerConfig['drift']>['repairAs'],
  states: ReadonlyMap<string, LoadedState>,
  approvalKeys: ReadonlyMap<string, readonly string[]>,
  baseDir: string,
  problems: string[],
  notice: (line: string) => void,
): RepairIdentity | undefined {
  if (given === undefined) {
    for (const state of states.values()) {
      const auto = state.rules.filter((rule) => rule.repair?.auto === true).map((rule) => rule.name);
      if (auto.length > 0)
        problems.push(
          `drift: ${state.file} has rules that repair automatically (${auto.join(', ')}) but drift.repairAs is not set; name the identity repairs start as (repairAs: { by: NAME, key: FILE }, NAME's public key under approvals.keys), or drop repair.auto`,
        );
    }
    return undefined;
  }
  let key: KeyObject;
  const file = path.resolve(baseDir, given.key);
  try {
    key = privateKeyFromPem(readFileSync(file, 'utf8'));
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unreadable');
    problems.push(
      `drift.repairAs.key: ${given.key} is not a readable Ed25519 private key (${why}); create one with \`tideline keys create ${given.by}\``,
    );
    return undefined;
  }
  // A signing key like an operator's approval key, and warned about alike (cli/approval-signing.ts).
  warnIfOpenToOthers(file, 'drift.repairAs key', notice, '(it signs repair runs)');
  const id = keyId(createPublicKey(key));
  const registered = (approvalKeys.get(given.by) ?? []).some((text) => {
    const publicKey = parsePublicKey(text);
    return publicKey !== undefined && keyId(publicKey) === id;
  });
  if (!registered) {
    problems.push(
      `drift.repairAs: the public key of ${given.key} (key id ${id}) is not registered for ${given.by} under approvals.keys; register it there so the worker verifies the repairs' starter`,
    );
    return undefined;
  }
  return { by: given.by, key };
}

/**
 * The rules with `repair.auto` whose repair runbook a catalogue worker would refuse
 * (RUNBOOK_NOT_ALLOWED at every repair): the worker does not start with them.
 */
export function uncataloguedAutoRepairs(
  states: ReadonlyMap<string, LoadedState>,
  catalog: CatalogSettings,
  problems: string[],
): void {
  if (catalog.mode !== 'catalog') return;
  for (const state of states.values())
    for (const rule of state.rules)
      if (
        rule.repair?.auto === true &&
        rule.repairDefinition !== undefined &&
        !catalog.entries.has(definitionHash(rule.repairDefinition))
      )
        problems.push(
          `drift: ${state.file} rule ${rule.name} repairs automatically with ${rule.repair.runbook}, which is not in this worker's catalogue (every repair would be refused with RUNBOOK_NOT_ALLOWED); add it under catalog.runbooks`,
        );
}

function refused(code: DriftRepairCode | RepairProblemCode, reason: string): DriftRepairResult {
  return { started: false, code, reason };
}

/** Starts the repair of one service's findings as `identity`, unless they are gone. */
export async function startDriftRepair(
  state: LoadedState | undefined,
  check: (state: LoadedState) => Promise<{ report: DriftReport; services: JsonValue[] }>,
  identity: RepairIdentity,
  place: RepairRunPlace,
  input: DriftRepairInput,
): Promise<DriftRepairResult> {
  if (state === undefined)
    throw ApplicationFailure.create({
      type: DRIFT_STATE_UNKNOWN,
      message: `state ${input.state} is not one this worker watches (drift.states of its configuration)`,
      nonRetryable: true,
    });
  const auto = new Set(state.rules.filter((rule) => rule.repair?.auto === true).map((rule) => rule.name));
  // Drift read after this instant: a run of the repair's id closed before it did not mend it.
  const checkedAt = new Date();
  const { report, services } = await check(state);
  const findings = report.findings.filter(
    (finding) =>
      finding.service.id === input.service.id &&
      input.rules.includes(finding.rule) &&
      auto.has(finding.rule) &&
      finding.repair === input.runbook,
  );
  if (findings.length === 0)
    return refused('REPAIR_NOT_NEEDED', `${input.service.name} breaks none of ${input.rules.join(', ')} now`);
  const plan = planRepairs(state, { ...report, findings }, services);
  const problem = plan.problems[0];
  if (problem !== undefined) return refused(problem.code, problem.message);
  const repair = plan.repairs[0];
  if (repair === undefined)
    return refused('REPAIR_NOT_NEEDED', `nothing to repair for ${input.service.name}`);
  // One id per finding, whoever repairs it (a reconcile too): a run of it that is open or closed
  // since the drift was read is this repair, and a retried start finds it and starts nothing.
  const baseId = repairRunId({
    state: state.name,
    runbook: repair.runbook,
    service: repair.service,
    rules: repair.rules,
    findings,
  });
  const { workflowId } = await startOrJoinRepair(place.client, baseId, checkedAt, (id) => {
    const run: RunbookWorkflowInput = {
      definition: repair.definition,
      inputs: repair.inputs,
      startedBy: signStart(identity.key, {
        workflowId: id,
        taskQueue: place.taskQueue,
        by: identity.by,
        definition: repair.definition,
        inputs: repair.inputs,
      }),
    };
    return place.client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
      taskQueue: place.taskQueue,
      workflowId: id,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [run],
      memo: { runbook: repair.definition.name },
      staticSummary: `${repair.definition.name}: drift repair of ${input.service.name} (${repair.rules.join(', ')}) by watcher of ${state.name}`,
    });
  });
  return { started: true, workflowId };
}

function statusName(temporalStatus: string): string {
  return temporalStatus === 'COMPLETED' ? 'succeeded' : temporalStatus.toLowerCase().replace('_', '-');
}

/** How a closed run ended, from its report (or its failure when it has none). */
async function endedRun(handle: WorkflowHandle, temporalStatus: string): Promise<EndedRun> {
  const status = statusName(temporalStatus);
  if (status === 'succeeded') return { status };
  try {
    await handle.result();
    return { status };
  } catch (error) {
    const failure = reportInFailure(error)?.failure;
    if (failure !== undefined) return { status, failure };
    const cause = (error as { cause?: { type?: string; message?: string } }).cause;
    return {
      status,
      failure: {
        type: cause?.type ?? status.toUpperCase(),
        message: cause?.message ?? (error instanceof Error ? error.message : String(error)),
      },
    };
  }
}

/** What became of one repair run: still running, stopped for someone, or how it ended. */
async function outcomeOf(client: Client, workflowId: string): Promise<WatchedRepair['outcome']> {
  const handle = client.workflow.getHandle(workflowId);
  let description;
  try {
    description = await handle.describe();
  } catch (error) {
    if ((error as { name?: unknown }).name !== 'WorkflowNotFoundError') throw error;
    const code: DriftRepairCode = 'REPAIR_RUN_NOT_FOUND';
    return { kind: 'not-started', code, reason: `no run ${workflowId} is known` };
  }
  if (description.status.name !== 'RUNNING')
    return endedOutcome(await endedRun(handle, description.status.name));
  const progress = await handle.query(progressQuery);
  return stoppedAt(progress, Date.now()) ?? { kind: 'running' };
}

export async function driftRepairOutcomes(
  client: Client,
  workflowIds: readonly string[],
): Promise<DriftRepairOutcomes> {
  const outcomes: DriftRepairOutcomes = {};
  for (const workflowId of workflowIds) outcomes[workflowId] = await outcomeOf(client, workflowId);
  return outcomes;
}
