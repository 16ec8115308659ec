// Cancels a runbook at every point of its run and checks that nothing is left behind: for each
// top-level step, once while the step is in progress (its API requests held open by the local
// cloud's latency fault, so the cancel lands while a call is in flight) and once right after the
// step is done. After each cancelled run the local cloud must hold what it held before.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { StepDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import { progressQuery, type RunProgress } from '../../workflows/messages';
import { pollUntil } from './runbook-fixtures';
import { RUNBOOKS_DIR, type RunbookStack } from './runbook-stack';

export interface CancelPoint {
  step: string;
  when: 'during' | 'after';
  /**
   * The action whose requests the local cloud holds open: the step's own (during) or the next
   * step's (after), so the run is reliably in flight at the point.
   */
  hold?: string;
}

/** How long the local cloud holds each request of the held action (real time). */
const HOLD_MS = 1_500;

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
export function cancelPoints(runbook: string): CancelPoint[] {
  const definition = loadRunbookFile(path.join(RUNBOOKS_DIR, runbook));
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
export async function inventory(stack: RunbookStack): Promise<unknown> {
  const project_id = stack.projectId;
  const services = await stack.api.service.list({ project_id });
  const vpcs = await stack.api.vpc.list({ project_id });
  const vpcNames = new Map(vpcs.map((v) => [v.id, v.name]));
  const peerings = await Promise.all(
    vpcs.map(async (vpc) => ({
      vpc: vpc.name,
      cidr: vpc.cidr,
      peerings: (await stack.api.peering.list({ project_id, vpc_id: vpc.id! }))
        .map((p) => `${p.peer_vpc_id}:${p.status}`)
        .sort(),
    })),
  );
  return {
    vpcs: peerings.sort((a, b) => String(a.vpc).localeCompare(String(b.vpc))),
    services: services
      .map((s) => ({
        name: s.name,
        status: s.status,
        environment: s.metadata?.environment ?? null,
        vpc: s.vpcEndpoint?.vpc_id ? vpcNames.get(s.vpcEndpoint.vpc_id) : null,
        pooler: Boolean(s.connection_pooler?.endpoint),
        ha: s.ha_replicas ?? null,
        size: s.resources?.[0]?.spec ?? null,
        replicaSets: (s.read_replica_sets ?? []).map((r) => `${r.name}:${r.nodes}:${r.status}`).sort(),
      }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  };
}

/** Waits until the project's inventory equals `expected` (lifecycles settle), then gives it. */
export async function settledInventory(stack: RunbookStack, expected: unknown): Promise<unknown> {
  const wanted = JSON.stringify(expected);
  try {
    return await pollUntil(
      'the cloud to settle',
      () => inventory(stack),
      (now) => JSON.stringify(now) === wanted,
      60_000,
    );
  } catch {
    return inventory(stack); // the caller's assertion shows the difference
  }
}

/** Waits until the cloud stops changing (two equal reads in a row), for a before-state. */
export async function stableInventory(stack: RunbookStack): Promise<unknown> {
  let previous = JSON.stringify(await inventory(stack));
  return pollUntil(
    'the cloud to be stable',
    () => inventory(stack),
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

/** Starts the run, cancels it at the point, and gives its final report. */
export async function runAndCancel(
  stack: RunbookStack,
  start: () => Promise<WorkflowHandle>,
  point: CancelPoint,
): Promise<CancelOutcome> {
  if (point.hold !== undefined) {
    stack.cloud.cloud.addFaults({
      action: point.hold as never,
      kind: 'latency',
      ms: HOLD_MS,
      probability: 1,
    });
  }
  const handle = await start();
  let cancelledAtPoint = false;
  try {
    const progress = await pollUntil(
      `step ${point.step} ${point.when}`,
      () => handle.query(progressQuery),
      (p) =>
        reached(p, point) ||
        p.status !== 'running' ||
        p.steps.find((s) => s.key === point.step)?.status === 'skipped',
      60_000,
    );
    if (reached(progress, point) && progress.status === 'running') {
      await handle.cancel();
      cancelledAtPoint = true;
    }
  } finally {
    stack.cloud.cloud.clearFaults();
  }
  await handle.result().catch(() => undefined);
  return { cancelledAtPoint, final: await handle.query(progressQuery) };
}
