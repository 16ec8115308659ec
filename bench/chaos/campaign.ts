// One chaos round: provisioning runs started at random moments under injected API faults (5xx,
// 429 with Retry-After, creates that apply and then fail or drop the connection), while the
// worker is SIGKILLed and restarted (round "worker-kill") or the Temporal dev server is stopped
// and started again on its SQLite file (round "server-restart") at random moments. Afterwards:
// how many runs ended as they should, duplicates, orphans, and recovery time per disruption.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { FaultRuleInput } from '../../local-cloud/fault-schema';
import { reportInFailure, type RunReport } from '../../contract/run-messages';
import { startDevServer, type DevServer } from '../lib/dev-server';
import { startBenchStack, type BenchStack, type Durations } from '../lib/stack';
import { round, sleep, summarize, type Summary } from '../lib/stats';
import { auditCloud, type Audit, type PlannedRun } from './audit';
import { recoverySamples, runTimeline } from './recovery';

export type Disruption =
  'worker-kill' | 'server-restart' | 'cluster-worker-kill' | 'cluster-server-kill' | 'cluster-postgres-stop';

/** Another system under test (the native cluster, bench/cluster-chaos.ts): its server, its own workers and disruption. */
export interface RoundTarget {
  server: DevServer;
  /** Starts the round's workers on the stack (which starts none itself). */
  startWorkers(stack: BenchStack): Promise<void>;
  disrupt(stack: BenchStack): Promise<void>;
  close(): Promise<void>;
}

export interface RoundOptions {
  disruption: Disruption;
  runs: number;
  /** Runs (of `runs`) that attach to a VPC that does not exist, so they fail and compensate. */
  doomed: number;
  /** Runs start at random moments within this window, ms. */
  startWindowMs: number;
  /** Disruption times, ms after the round began (each jittered by up to `jitterMs`). */
  disruptAtMs: number[];
  jitterMs: number;
  durations: Durations;
  seed: number;
  timeoutMs: number;
  /** Default: a dev server (on a SQLite file for server-restart) and one worker. */
  target?: () => Promise<RoundTarget>;
}

export const CHAOS_FAULTS: FaultRuleInput[] = [
  { action: '*', kind: 'error', status: 503, probability: 0.2 },
  { action: '*', kind: 'rateLimit', retryAfterSeconds: 1, probability: 0.05 },
  { action: 'service.create', kind: 'applyThenFail', mode: 'error', probability: 0.25 },
  { action: 'service.create', kind: 'applyThenFail', mode: 'drop', probability: 0.15 },
] as FaultRuleInput[];

export interface RoundResult {
  disruption: Disruption;
  runs: number;
  doomed: number;
  /** Runs that ended as planned: succeeded, or (doomed) failed and compensated. */
  completedAsPlanned: number;
  succeeded: number;
  failed: number;
  unfinished: number;
  unexpected: string[];
  duplicates: number;
  orphans: number;
  incomplete: string[];
  disruptions: number;
  /** Disruption → worker polling again (kill) or server serving again (restart), ms. */
  outageMs: number[];
  recoveryMs: Summary;
  /** Recovery by what the run was doing at the disruption (activity type or workflow task). */
  recoveryByActivity: Record<string, Summary>;
  /** Start → close of each run, ms. */
  runMs: Summary;
  faultsFired: Record<string, number>;
  apiCalls: number;
  roundMs: number;
}

/** Names, and every (runs / doomed)-th run doomed. */
export function planRuns(runs: number, doomed: number): PlannedRun[] {
  const every = doomed > 0 ? Math.max(1, Math.floor(runs / doomed)) : Number.POSITIVE_INFINITY;
  return Array.from({ length: runs }, (_, i) => ({
    name: `chaos-${String(i).padStart(3, '0')}`,
    doomed: i % every === every - 1 && Math.floor(i / every) < doomed,
  }));
}

async function startWithRetry(stack: BenchStack, run: PlannedRun, deadline: number): Promise<WorkflowHandle> {
  for (;;) {
    try {
      return await stack.startProvisioning(run.name, run.doomed ? '999999' : undefined);
    } catch (error) {
      // The dev server may be restarting; a client retries until it is back.
      if (Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

async function outcome(handle: WorkflowHandle, deadline: number): Promise<RunReport | 'unfinished'> {
  for (;;) {
    try {
      const { status } = await handle.describe();
      if (status.name === 'COMPLETED') return (await handle.result()) as RunReport;
      if (status.name === 'FAILED') {
        try {
          await handle.result();
        } catch (error) {
          return reportInFailure(error) ?? ({ status: 'failed' } as RunReport);
        }
      }
      if (status.name !== 'RUNNING') return { status: 'failed' } as RunReport;
    } catch {
      // server restarting
    }
    if (Date.now() > deadline) return 'unfinished';
    await sleep(1_000);
  }
}

export async function runChaosRound(options: RoundOptions): Promise<RoundResult> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'tideline-chaos-'));
  const target = await options.target?.();
  const server =
    target?.server ??
    (await startDevServer(
      options.disruption === 'server-restart' ? { dbFile: path.join(workDir, 'temporal.db') } : {},
    ));
  const stack = await startBenchStack({
    server,
    durations: options.durations,
    seed: options.seed,
    noWorker: target !== undefined,
  });
  try {
    await target?.startWorkers(stack);
    const plan = planRuns(options.runs, options.doomed);
    stack.cloud.addFaults(CHAOS_FAULTS);
    const began = Date.now();
    const deadline = began + options.timeoutMs;
    const disruptedAt: number[] = [];
    const outageMs: number[] = [];

    const starting = plan.map(async (run) => {
      await sleep(Math.random() * options.startWindowMs);
      return startWithRetry(stack, run, deadline);
    });
    const disrupting = (async () => {
      for (const offset of options.disruptAtMs) {
        const when = began + offset + Math.random() * options.jitterMs;
        await sleep(Math.max(0, when - Date.now()));
        const at = Date.now();
        disruptedAt.push(at);
        if (target) {
          await target.disrupt(stack);
        } else if (options.disruption === 'worker-kill') {
          await stack.worker!.kill();
          await stack.startWorker();
        } else {
          await server.stop();
          await server.start();
        }
        outageMs.push(Date.now() - at);
      }
    })();
    const handles = await Promise.all(starting);
    await disrupting;
    const reports = await Promise.all(handles.map((handle) => outcome(handle, deadline)));
    const roundMs = Date.now() - began;

    const fired: Record<string, number> = {};
    for (const rule of stack.cloud.listFaults()) {
      const mode = rule.kind === 'applyThenFail' ? `/${rule.mode}` : '';
      fired[`${rule.action} ${rule.kind}${mode}`] = rule.fired;
    }
    stack.cloud.clearFaults();

    const succeeded = new Set<string>();
    const unexpected: string[] = [];
    let failed = 0;
    let unfinished = 0;
    let asPlanned = 0;
    plan.forEach((run, index) => {
      const report = reports[index]!;
      if (report === 'unfinished') {
        unfinished += 1;
        unexpected.push(`${run.name}: unfinished`);
        return;
      }
      if (report.status === 'succeeded') succeeded.add(run.name);
      else failed += 1;
      const compensated = report.steps?.find((s) => s.key === 'create')?.status === 'compensated';
      const planned = run.doomed
        ? report.status === 'failed' && report.failure?.stepKey === 'attach' && compensated
        : report.status === 'succeeded';
      if (planned) asPlanned += 1;
      else
        unexpected.push(
          `${run.name}: ${report.status} ${report.failure ? `${report.failure.stepKey} ${report.failure.type}` : ''}`.trim(),
        );
    });
    const audit: Audit = await auditCloud(stack.api, stack.access.projectId, stack.vpcId, plan, succeeded);
    const timelines = await Promise.all(handles.map((handle) => runTimeline(handle)));
    const recoveries = recoverySamples(disruptedAt, timelines);
    return {
      disruption: options.disruption,
      runs: options.runs,
      doomed: plan.filter((run) => run.doomed).length,
      completedAsPlanned: asPlanned,
      succeeded: succeeded.size,
      failed,
      unfinished,
      unexpected,
      duplicates: audit.duplicates,
      orphans: audit.orphans,
      incomplete: audit.incomplete,
      disruptions: disruptedAt.length,
      outageMs,
      recoveryMs: summarize(
        recoveries.map((r) => r.ms),
        0,
      ),
      recoveryByActivity: Object.fromEntries(
        [...new Set(recoveries.map((r) => r.doing))].map((doing) => [
          doing,
          summarize(
            recoveries.filter((r) => r.doing === doing).map((r) => r.ms),
            0,
          ),
        ]),
      ),
      runMs: summarize(
        timelines.filter((t) => t.closedAt !== undefined).map((t) => t.closedAt! - t.startedAt),
        0,
      ),
      faultsFired: fired,
      apiCalls: stack.cloud.stats().total,
      roundMs: round(roundMs, 0),
    };
  } finally {
    await stack.close();
    await (target ? target.close() : server.stop());
    rmSync(workDir, { recursive: true, force: true });
  }
}
