// The three ways of waiting compared in figure 3, each polling service.get until READY against the
// local cloud: tideline's wait activity (the real one, run in Temporal's mock activity context),
// fixed 15 s polling after a 30 s first delay, and fixed 1 s polling. Time is compressed by
// `scale` (real ms = nominal ms × scale) for the lifecycles and every policy alike.
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  createWaitActivity,
  DEFAULT_MAX_POLL_INTERVAL_MS,
  DEFAULT_POLL_INTERVAL_MS,
  firstPollDelay,
  nextPollDelay,
  type WaitInput,
  type WaitResult,
} from '../activities/wait';
import type { CloudClient } from '../cloud/client';
import { sleep } from './lib/stats';

export type PolicyName = 'tideline' | 'fixed-15s-after-30s' | 'fixed-1s';
export const POLICIES: readonly PolicyName[] = ['tideline', 'fixed-15s-after-30s', 'fixed-1s'];

export interface WaitTarget {
  api: CloudClient;
  projectId: string;
  serviceId: string;
  /** Real ms per nominal ms. */
  scale: number;
  /** Nominal ms after which the wait gives up. */
  deadlineMs: number;
}

export interface WaitOutcome {
  /** service.get calls made. */
  calls: number;
  /** When READY was seen (epoch ms, real). */
  noticedAt: number;
  startedAt: number;
}

async function tidelineWait(target: WaitTarget): Promise<WaitOutcome> {
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
  const waitFor = createWaitActivity({ clients: { forProject: () => target.api } });
  const startedAt = Date.now();
  const request: WaitInput = {
    action: 'service.get',
    input: { project_id: target.projectId, service_id: target.serviceId },
    until: "result.status == 'READY'",
    failIf: "result.status in ['DELETING', 'DELETED']",
    startedAt,
    deadline: startedAt + target.deadlineMs * target.scale,
    // The runbook's defaults (interval 1 s, maxInterval 15 s), in compressed time.
    intervalMs: DEFAULT_POLL_INTERVAL_MS * target.scale,
    maxIntervalMs: DEFAULT_MAX_POLL_INTERVAL_MS * target.scale,
  };
  const result: WaitResult = await env.run(waitFor, request);
  return { calls: result.polls, noticedAt: Date.now(), startedAt };
}

async function fixedWait(target: WaitTarget, firstDelayMs: number, everyMs: number): Promise<WaitOutcome> {
  const startedAt = Date.now();
  const giveUp = startedAt + target.deadlineMs * target.scale;
  if (firstDelayMs > 0) await sleep(firstDelayMs * target.scale);
  for (let calls = 1; ; calls++) {
    const service = await target.api.service.get({
      project_id: target.projectId,
      service_id: target.serviceId,
    });
    if (service.status === 'READY') return { calls, noticedAt: Date.now(), startedAt };
    if (Date.now() > giveUp) throw new Error(`fixed polling gave up on ${target.serviceId}`);
    await sleep(everyMs * target.scale);
  }
}

export function waitWith(policy: PolicyName, target: WaitTarget): Promise<WaitOutcome> {
  switch (policy) {
    case 'tideline':
      return tidelineWait(target);
    case 'fixed-15s-after-30s':
      return fixedWait(target, 30_000, 15_000);
    case 'fixed-1s':
      return fixedWait(target, 0, 1_000);
  }
}

/**
 * The same policies on a virtual clock with instant answers (tideline's through the activity's own
 * `nextPollDelay`): the poll times alone decide lag and calls, so thousands of samples give a
 * stable p95; the real-time runs check it.
 */
export function modelWait(
  policy: PolicyName,
  readyAfterMs: number,
  random: () => number,
): { calls: number; lagMs: number } {
  let now = 0;
  let calls = 0;
  for (;;) {
    if (calls === 0 && policy === 'fixed-15s-after-30s') now = 30_000;
    if (calls === 0 && policy === 'tideline') now = firstPollDelay(DEFAULT_POLL_INTERVAL_MS, random);
    calls += 1;
    if (now >= readyAfterMs) return { calls, lagMs: now - readyAfterMs };
    if (policy === 'fixed-1s') now += 1_000;
    else if (policy === 'fixed-15s-after-30s') now += 15_000;
    else now += nextPollDelay(now, DEFAULT_POLL_INTERVAL_MS, DEFAULT_MAX_POLL_INTERVAL_MS, random);
  }
}
