// The chaos campaign's cancel round: provision-production-service and fork-and-promote runs, one
// at a time, each cancelled at a random moment (bench/chaos/cancel-plan.ts) — also while a call is
// in flight, held open by the local cloud. After each cancel the local cloud is audited against
// what it held before the run (bench/chaos/cancel-audit.ts): a cancelled run must leave nothing
// behind and put back what it changed; a run that finished before the cancel took effect owns
// exactly what its runbook documents.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { RunbookDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { progressQuery, type RunProgress, type RunReport } from '../../contract/run-messages';
import {
  pollUntil,
  runAndCancel,
  settledInventory,
  stableInventory,
  type CancelTarget,
} from '../lib/cancel-runs';
import { startDevServer } from '../lib/dev-server';
import { RUNBOOKS_DIR } from '../lib/repo';
import { startBenchStack, type BenchStack, type Durations } from '../lib/stack';
import { round, sleep } from '../lib/stats';
import { auditCancel, type Documented } from './cancel-audit';
import { describeCase, planCases, type CancelCase, type CancelRunbook, type PlanInputs } from './cancel-plan';

export interface CancelRoundOptions {
  /** Cases are drawn until this many cancels were sent to running runs. */
  cancels: number;
  seed: number;
  /** Run only this case (reproducing one); calibration still runs unless `runMs` is given. */
  only?: number;
  /** Skip calibration: how long an uncancelled run takes, ms (for random-time moments). */
  runMs?: Record<CancelRunbook, number>;
  durations: Durations;
}

export type CancelEnd = 'cancelled' | 'succeeded' | 'failed';

export interface CancelCaseResult extends CancelCase {
  description: string;
  /** A cancel was sent while the run was running. */
  cancelSent: boolean;
  /** Steps running when the cancel was sent (random-time), or the point's step. */
  at: string;
  ended: CancelEnd;
  leftovers: string[];
  notRestored: string[];
  ms: number;
}

export interface CancelRoundResult {
  generatedAt: string;
  seed: number;
  runMs: Record<CancelRunbook, number>;
  durations: Durations;
  cases: CancelCaseResult[];
  cancels: number;
  orphans: number;
  notRestored: number;
  roundMs: number;
  apiCalls: number;
}

const RUNBOOKS: CancelRunbook[] = ['provision-production-service', 'fork-and-promote'];

interface Round {
  stack: BenchStack;
  target: CancelTarget;
  definitions: Record<CancelRunbook, RunbookDefinition>;
  /** The production service fork-and-promote runs fork next (READY, PROD, in the VPC, pooled). */
  parent: { id: string; name: string } | undefined;
}

function start(
  round: Round,
  runbook: CancelRunbook,
  inputs: Record<string, unknown>,
): Promise<WorkflowHandle> {
  return round.stack.startRun(
    round.definitions[runbook],
    inputs,
    `cancel-${runbook}-${randomBytes(4).toString('hex')}`,
  );
}

async function provisionParent(round: Round, name: string): Promise<number> {
  const began = Date.now();
  const handle = await start(round, 'provision-production-service', {
    project_id: round.target.projectId,
    name,
    vpc_id: round.stack.vpcId,
  });
  const report = (await handle.result()) as RunReport;
  round.parent = { id: String(report.outputs.service_id), name };
  return Date.now() - began;
}

/** The HA layout given to a parent when a case cancels in the fork's HA steps (else skipped). */
const PARENT_HA = { replica_count: 2, sync_replica_count: 1 };

/**
 * A fork-and-promote parent as the runbook expects it (a new one when the last one changed), with
 * an HA layout when the case needs the fork's HA steps to run.
 */
async function ensureParent(
  round: Round,
  index: number,
  withHA: boolean,
): Promise<{ id: string; name: string }> {
  const project_id = round.target.projectId;
  const usable = async (id: string) => {
    const s = await round.stack.api.service.get({ project_id, service_id: id });
    const ok =
      s.status === 'READY' &&
      s.metadata?.environment === 'PROD' &&
      s.vpc_endpoint?.vpc_id === round.stack.vpcId &&
      Boolean(s.connection_pooler?.endpoint);
    return { ok, ha: (s.ha_replicas?.replica_count ?? 0) > 0 };
  };
  if (!round.parent || !(await usable(round.parent.id)).ok) {
    await provisionParent(round, `parent-${String(index).padStart(3, '0')}`);
  }
  const parent = round.parent!;
  if (withHA && !(await usable(parent.id)).ha) {
    await round.stack.api.service.setHA({ project_id, service_id: parent.id, ...PARENT_HA });
    await pollUntil(
      'the parent to be READY with HA',
      () => usable(parent.id),
      (u) => u.ok && u.ha,
      60_000,
    );
  }
  return parent;
}

const running = (p: RunProgress) =>
  p.steps
    .filter((s) => s.status === 'running')
    .map((s) => s.key)
    .join(', ') || '(between steps)';

/** Cancels `handle` unless it has closed already; true when the cancel reached a running run. */
async function cancelIfRunning(handle: WorkflowHandle): Promise<boolean> {
  try {
    await handle.cancel();
    return true;
  } catch (error) {
    if ((await handle.describe()).status.name === 'RUNNING') throw error;
    return false;
  }
}

async function runCase(round: Round, c: CancelCase): Promise<CancelCaseResult> {
  const began = Date.now();
  const projectId = round.target.projectId;
  const name = `cancel-${String(c.index).padStart(3, '0')}`;
  let inputs: Record<string, unknown>;
  let documented: Documented;
  if (c.runbook === 'provision-production-service') {
    inputs = { project_id: projectId, name, vpc_id: round.stack.vpcId };
    documented = { added: [name], changed: [] };
  } else {
    const parent = await ensureParent(round, c.index, c.point?.step.startsWith('fork_ha') === true);
    inputs = {
      project_id: projectId,
      service_id: parent.id,
      fork_name: name,
      require_approval: c.moment === 'approval-pending',
    };
    documented = { added: [name], changed: [parent.name] };
  }
  const before = await stableInventory(round.target);
  let handle: WorkflowHandle | undefined;
  const begin = async () => (handle = await start(round, c.runbook, inputs));
  let cancelSent = false;
  let at = c.point?.step ?? '';
  if (c.point) {
    const outcome = await runAndCancel(round.target, begin, c.point, {
      ...(c.holdMs !== undefined ? { holdMs: c.holdMs } : {}),
      delayMs: c.delayMs,
    });
    cancelSent = outcome.cancelledAtPoint;
  } else {
    const h = await begin();
    if (c.moment === 'approval-pending') {
      const p = await pollUntil(
        'a pending approval',
        () => h.query(progressQuery),
        (q) => q.pendingApproval !== undefined || q.status !== 'running',
        60_000,
      );
      at = p.pendingApproval ? 'approval (pending)' : running(p);
    }
    await sleep(c.delayMs);
    if (c.moment === 'random-time') at = running(await h.query(progressQuery));
    cancelSent = await cancelIfRunning(h);
    await h.result().catch(() => undefined);
  }
  const final = await handle!.query(progressQuery);
  const ended: CancelEnd =
    final.status === 'succeeded' ? 'succeeded' : final.status === 'cancelled' ? 'cancelled' : 'failed';
  let after;
  if (ended === 'succeeded') {
    after = await stableInventory(round.target);
    if (c.runbook === 'fork-and-promote') {
      const report = (await handle!.result()) as RunReport;
      round.parent = { id: String(report.outputs.service_id), name };
    }
  } else {
    after = await settledInventory(round.target, before, 60_000);
  }
  const audit = auditCancel(before, after, ended === 'succeeded' ? documented : { added: [], changed: [] });
  return { ...c, description: describeCase(c), cancelSent, at, ended, ...audit, ms: Date.now() - began };
}

export async function runCancelRound(options: CancelRoundOptions): Promise<CancelRoundResult> {
  const server = await startDevServer();
  const stack = await startBenchStack({ server, durations: options.durations, seed: options.seed });
  const began = Date.now();
  try {
    const definitions = Object.fromEntries(
      RUNBOOKS.map((r) => [r, loadRunbookFile(path.join(RUNBOOKS_DIR, `${r}.yaml`))]),
    ) as Record<CancelRunbook, RunbookDefinition>;
    const target: CancelTarget = { api: stack.api, projectId: stack.access.projectId, faults: stack.cloud };
    const state: Round = { stack, target, definitions, parent: undefined };
    // Calibration: one uncancelled run of each, which also makes the first parent.
    let runMs = options.runMs;
    if (runMs === undefined) {
      const provision = await provisionParent(state, 'parent-calibration');
      const forkBegan = Date.now();
      const fork = await start(state, 'fork-and-promote', {
        project_id: target.projectId,
        service_id: state.parent!.id,
        fork_name: 'parent-calibration-fork',
      });
      const report = (await fork.result()) as RunReport;
      state.parent = { id: String(report.outputs.service_id), name: 'parent-calibration-fork' };
      runMs = { 'provision-production-service': provision, 'fork-and-promote': Date.now() - forkBegan };
    }
    const inputs: PlanInputs = { definitions, runMs };
    const cases: CancelCaseResult[] = [];
    // Twice the cancels asked for: some points are never reached (a skipped step, a run already done).
    const plan = planCases(options.seed, (options.only ?? options.cancels * 2) + 1, inputs);
    for (const c of options.only !== undefined ? [plan[options.only]!] : plan) {
      const result = await runCase(state, c);
      cases.push(result);
      const flag = result.leftovers.length || result.notRestored.length ? ' LEFT SOMETHING' : '';
      process.stderr.write(`chaos cancel: ${result.description} → ${result.ended} (${result.at})${flag}\n`);
      if (options.only === undefined && cases.filter((r) => r.cancelSent).length >= options.cancels) break;
    }
    return {
      generatedAt: new Date().toISOString(),
      seed: options.seed,
      runMs,
      durations: options.durations,
      cases,
      cancels: cases.filter((r) => r.cancelSent).length,
      orphans: cases.reduce((n, r) => n + r.leftovers.length, 0),
      notRestored: cases.reduce((n, r) => n + r.notRestored.length, 0),
      roundMs: round(Date.now() - began, 0),
      apiCalls: stack.cloud.stats().total,
    };
  } finally {
    await stack.close();
    await server.stop();
  }
}
