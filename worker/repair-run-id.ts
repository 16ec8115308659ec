// The one workflow id of a drift repair, whoever starts it (`tideline reconcile`, a drift
// watcher), and what a repair whose id is already taken means. The id is derived from the state,
// the service, the rules it repairs and what the service holds at the fields those rules read, so
// two reconciles (or a reconcile and a watcher) that see the same drift name the same run and
// Temporal starts it once. A run of that id that is still open, or closed after the drift was
// read, is that repair: it is joined, not started again. One that closed before the drift was
// read did not mend it (or the drift came back): the next generation of the id repairs it.
import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { isAlreadyStarted } from '../contract/workflow-types';
import type { DriftFinding } from '../state/drift-check';

/** What a repair id is derived from: the state's name, the service, its findings. */
export interface RepairIdentityParts {
  state: string;
  runbook: string;
  service: { id: string; name: string };
  rules: readonly string[];
  /** The findings of `rules` for the service (others are ignored). */
  findings: readonly Pick<DriftFinding, 'rule' | 'service' | 'expected' | 'found'>[];
}

const HASH_CHARS = 16;

/**
 * `repair-<state>-<service name>-<hash of state, runbook, service id, rules and findings>`, the
 * base of the repair's run ids (`<base>-1`, `<base>-2`, … as the drift comes back).
 */
export function repairRunId(parts: RepairIdentityParts): string {
  const rules = [...parts.rules].sort();
  const findings = parts.findings
    .filter((finding) => finding.service.id === parts.service.id && rules.includes(finding.rule))
    .map((finding) => ({ rule: finding.rule, expected: finding.expected, found: finding.found }))
    .sort((a, b) => (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  const hash = createHash('sha256')
    .update(
      JSON.stringify({
        state: parts.state,
        runbook: parts.runbook,
        service: parts.service.id,
        rules,
        findings,
      }),
    )
    .digest('hex')
    .slice(0, HASH_CHARS);
  return `repair-${parts.state}-${parts.service.name}-${hash}`;
}

/** What a run of a repair's id means for a repair of drift read at `checkedAt`. */
export type PriorRepair =
  | { kind: 'none' }
  /** Open, or closed since the drift was read: this repair; join it. */
  | { kind: 'join'; open: boolean }
  /** Closed before the drift was read: the drift outlived it; the next generation repairs it. */
  | { kind: 'outlived' };

function isNotFound(error: unknown): boolean {
  return (error as { name?: unknown }).name === 'WorkflowNotFoundError';
}

/** Reads the run of `workflowId`, if any, and what it means for a repair of drift read at `checkedAt`. */
export async function priorRepair(client: Client, workflowId: string, checkedAt: Date): Promise<PriorRepair> {
  let description;
  try {
    description = await client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (isNotFound(error)) return { kind: 'none' };
    throw error;
  }
  if (description.status.name === 'RUNNING') return { kind: 'join', open: true };
  const closed = description.closeTime;
  return closed !== undefined && closed.getTime() < checkedAt.getTime()
    ? { kind: 'outlived' }
    : { kind: 'join', open: false };
}

/** Generations of one repair id tried before giving up (a drift that came back this often). */
const MAX_GENERATIONS = 10_000;

/**
 * Starts the repair unless a run of it is this repair already. The runs of a repair are
 * `<id>-1`, `<id>-2`, …: the first generation that is open, or closed since the drift was read,
 * is joined; past those that closed before it (the drift outlived them, or came back), the next
 * generation is started by `start`, with a reuse policy that refuses a taken id — a concurrent
 * start of the same generation throws Temporal's already-started error, and its run is joined.
 */
export async function startOrJoinRepair(
  client: Client,
  baseId: string,
  checkedAt: Date,
  start: (workflowId: string) => Promise<unknown>,
): Promise<{ workflowId: string; joined: boolean }> {
  for (let generation = 1; generation <= MAX_GENERATIONS; generation++) {
    const workflowId = `${baseId}-${generation}`;
    const prior = await priorRepair(client, workflowId, checkedAt);
    if (prior.kind === 'outlived') continue;
    if (prior.kind === 'join') return { workflowId, joined: true };
    try {
      await start(workflowId);
      return { workflowId, joined: false };
    } catch (error) {
      if (isAlreadyStarted(error)) return { workflowId, joined: true };
      throw error;
    }
  }
  throw new Error(`${baseId} has been repaired ${MAX_GENERATIONS} times; no further run is started`);
}
