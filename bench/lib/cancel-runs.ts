// Cancelling runbook runs at chosen points and checking what the local cloud holds afterwards,
// shared by the cancel-anywhere test (test/helpers/cancel-matrix.ts) and the chaos campaign's
// cancel round (bench/chaos/cancel-round.ts). A point is "during" a top-level step (its API
// requests held open by the local cloud's latency fault, so the cancel lands while a call is in
// flight) or "after" it; the inventory names what a runbook changes, ids left out.
import type { WorkflowHandle } from '@temporalio/client';
import type { CloudClient } from '../../cloud/client';
import type { RunbookDefinition, StepDefinition } from '../../dsl/definition';
import type { FaultRuleInput } from '../../local-cloud/fault-schema';
import { progressQuery, type RunProgress } from '../../contract/run-messages';

export interface CancelPoint {
  step: string;
  when: 'during' | 'after';
  /**
   * The action whose requests the local cloud holds open: the step's own (during) or the next
   * step's (after), so the run is reliably in flight at the point.
   */
  hold?: string;
}

/** The local cloud and its project, as both the test stack and the bench stack have them. */
export interface CancelTarget {
  api: CloudClient;
  projectId: string;
  faults: {
    addFaults(rules: FaultRuleInput | FaultRuleInput[]): Array<{ id: string }>;
    listFaults(): Array<{ id: string; fired: number }>;
    clearFaults(): void;
  };
}

/** How long the local cloud holds each request of the held action by default (real time). */
export const DEFAULT_HOLD_MS = 1_500;

const POLL_MS = 25;

/** One service as a runbook sees it (ids left out: names identify). */
export interface ServiceSummary {
  name: string | undefined;
  status: string | undefined;
  environment: string | null;
  vpc: string | null | undefined;
  pooler: boolean;
  ha: unknown;
  size: unknown;
  replicaSets: string[];
}

export interface CloudInventory {
  vpcs: Array<{ vpc: string | undefined; cidr: string | undefined; peerings: string[] }>;
  services: ServiceSummary[];
}

/** Reads until `done` holds, or throws after `timeoutMs` naming what it waited for and what it saw last. */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function firstAction(steps: StepDefinition[]): string | undefined {
  for (const step of steps) {
    if (step.kind === 'call' || step.kind === 'wait') return step.action;
    const nested =
      step.kind === 'foreach'
        ? firstAction(step.steps)
        : step.kind === 'parallel'
          ? firstAction(step.branches.flatMap((b) => b.steps))
          : undefined;
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * Every cancel point of a runbook: during each top-level step that takes time (its first action's
 * requests held open, or an approval), and right after each step (the next step's first action held
 * open, so the run is still there to be cancelled).
 */
export function cancelPointsOf(definition: RunbookDefinition): CancelPoint[] {
  return definition.steps.flatMap((step, index) => {
    const during = firstAction([step]);
    const next = firstAction(definition.steps.slice(index + 1));
    const points: CancelPoint[] = [];
    if (during !== undefined) points.push({ step: step.id, when: 'during', hold: during });
    else if (step.kind === 'approve') points.push({ step: step.id, when: 'during' });
    points.push({ step: step.id, when: 'after', ...(next !== undefined ? { hold: next } : {}) });
    return points;
  });
}

/** What the project holds, in the terms a runbook changes, ids left out (names identify). */
export async function inventory(target: Pick<CancelTarget, 'api' | 'projectId'>): Promise<CloudInventory> {
  const { api, projectId: project_id } = target;
  const services = await api.service.list({ project_id });
  const vpcs = await api.vpc.list({ project_id });
  const vpcNames = new Map(vpcs.map((v) => [v.id, v.name]));
  const peerings = await Promise.all(
    vpcs.map(async (vpc) => ({
      vpc: vpc.name,
      cidr: vpc.cidr,
      peerings: (await api.peering.list({ project_id, vpc_id: vpc.id! }))
        .map((p) => `${p.peer_vpc_id}:${p.status}`)
        .sort(),
    })),
  );
  return {
    vpcs: peerings.sort((a, b) => String(a.vpc).localeCompare(String(b.vpc))),
    services: services
      .map((s): ServiceSummary => ({
        name: s.name,
        status: s.status,
        environment: s.metadata?.environment ?? null,
        vpc: s.vpc_endpoint?.vpc_id ? vpcNames.get(s.vpc_endpoint.vpc_id) : null,
        pooler: Boolean(s.connection_pooler?.endpoint),
        ha: s.ha_replicas ?? null,
        size: s.resources?.[0]?.spec ?? null,
        replicaSets: (s.read_replica_sets ?? []).map((r) => `${r.name}:${r.nodes}:${r.status}`).sort(),
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

/** Waits until the project's inventory equals `expected` (lifecycles settle), then gives it. */
export async function settledInventory(
  target: Pick<CancelTarget, 'api' | 'projectId'>,
  expected: unknown,
  timeoutMs = 60_000,
): Promise<CloudInventory> {
  const wanted = JSON.stringify(expected);
  try {
    return await pollUntil(
      'the cloud to settle',
      () => inventory(target),
      (now) => JSON.stringify(now) === wanted,
      timeoutMs,
    );
  } catch {
    return inventory(target); // the caller compares and shows the difference
  }
}

/** Waits until the cloud stops changing (two equal reads in a row), for a before-state. */
export async function stableInventory(
  target: Pick<CancelTarget, 'api' | 'projectId'>,
): Promise<CloudInventory> {
  let previous = JSON.stringify(await inventory(target));
  return pollUntil(
    'the cloud to be stable',
    () => inventory(target),
    (now) => {
      const text = JSON.stringify(now);
      const same =
        text === previous &&
        !/"(QUEUED|CONFIGURING|PAUSING|RESUMING|DELETING|creating|deleting|resizing|pending)/.test(text);
      previous = text;
      return same;
    },
    60_000,
  );
}

function reached(progress: RunProgress, point: CancelPoint): boolean {
  const step = progress.steps.find((s) => s.key === point.step);
  if (step === undefined) return false;
  return point.when === 'during'
    ? step.status === 'running'
    : step.status !== 'pending' && step.status !== 'running';
}

export interface CancelOutcome {
  /** The cancel was sent at the point (false: the run ended or skipped the step first). */
  cancelledAtPoint: boolean;
  /** The run's progress once it has closed (cancelled, failed or succeeded). */
  final: RunProgress;
}

export interface CancelOptions {
  /** How long each held request is held open (default DEFAULT_HOLD_MS). */
  holdMs?: number;
  /** Cancel this long after the point was reached (default at once). */
  delayMs?: number;
}

/**
 * Polls until the point is reached or the run can no longer reach it. A call that runs as a local
 * activity keeps its workflow task open, and the run answers queries only when that task ends, so
 * a held call shows first on the local cloud: once the held action's fault has fired, the run is
 * at the point ('held'). (The held action may also be read by an earlier change's check; the
 * cancel then lands during that call, which is in flight too.)
 */
async function reachPoint(
  target: CancelTarget,
  handle: WorkflowHandle,
  point: CancelPoint,
  held: string[],
): Promise<RunProgress | 'held'> {
  const fired = () => target.faults.listFaults().some((rule) => held.includes(rule.id) && rule.fired > 0);
  const deadline = Date.now() + 60_000;
  let query: Promise<RunProgress> | undefined;
  for (;;) {
    if (fired()) return 'held';
    query ??= handle.query(progressQuery);
    query.catch(() => undefined);
    const progress = await Promise.race([query, sleep(POLL_MS * 4).then(() => undefined)]);
    if (progress !== undefined) {
      query = undefined;
      const skipped = progress.steps.find((s) => s.key === point.step)?.status === 'skipped';
      if (reached(progress, point) || progress.status !== 'running' || skipped) return progress;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for step ${point.step} ${point.when}`);
    await sleep(POLL_MS);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts the run, cancels it at the point, and gives its final report. */
export async function runAndCancel(
  target: CancelTarget,
  start: () => Promise<WorkflowHandle>,
  point: CancelPoint,
  options: CancelOptions = {},
): Promise<CancelOutcome> {
  const held =
    point.hold === undefined
      ? []
      : target.faults
          .addFaults({
            action: point.hold as never,
            kind: 'latency',
            ms: options.holdMs ?? DEFAULT_HOLD_MS,
            probability: 1,
          })
          .map((rule) => rule.id);
  const handle = await start();
  let cancelledAtPoint = false;
  try {
    const progress = await reachPoint(target, handle, point, held);
    if (progress === 'held' || (reached(progress, point) && progress.status === 'running')) {
      if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      try {
        await handle.cancel();
        cancelledAtPoint = true;
      } catch (error) {
        // Only a run that closed during the delay may refuse the cancel.
        if ((await handle.describe()).status.name === 'RUNNING') throw error;
      }
    }
  } finally {
    target.faults.clearFaults();
  }
  await handle.result().catch(() => undefined);
  return { cancelledAtPoint, final: await handle.query(progressQuery) };
}
