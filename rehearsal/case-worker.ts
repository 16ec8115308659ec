// Where a case's run goes: the suite's worker, or — for a case that needs what a worker is
// configured with (the file's `governance`, a `starter` with groups, a `clock`) — a worker of its
// own. A starter gets a fresh Ed25519 key that only this worker registers, and the run's start
// is signed with it, as `tideline run --by NAME` signs it, so the worker verifies who started it.
import { generateKeyPairSync } from 'node:crypto';
import type { ApprovalSettings, Clock } from '../activities/deps';
import { publicKeyText } from '../activities/approval-keys';
import type { SignedStart } from '../contract/approval-messages';
import { signStart } from '../activities/approval-signatures';
import { parseDuration } from '../dsl/durations';
import type { LoadedCase } from './test-file-loader';
import type { TestStack } from './test-stack';

export interface CaseWorker {
  taskQueue: string;
  startedBy?: SignedStart;
  stop(): Promise<void>;
}

/** The worker's time: `at` when the case starts, running on in real time from there. */
export function clockFrom(at: number, started = Date.now()): Clock {
  return { now: () => at + (Date.now() - started) };
}

/**
 * A rehearsal's stepped time: the first reading is `at`, each later one `stepMs` after the one
 * before, and a wait for a closed window moves it to the window's opening and lasts no real time.
 * Policies read it once per check, so what a run sees depends only on its order of checks.
 */
export function steppedClock(at: number, stepMs: number): Clock {
  let last: number | undefined;
  return {
    now() {
      last = last === undefined ? at : last + stepMs;
      return last;
    },
    waitUntil(until) {
      last = Math.max(last ?? at, until);
      return 0;
    },
  };
}

function caseClock(clock: NonNullable<LoadedCase['clock']>): Clock {
  return typeof clock === 'string'
    ? clockFrom(Date.parse(clock))
    : steppedClock(Date.parse(clock.at), parseDuration(clock.perCheck));
}

export async function caseWorkerFor(
  stack: TestStack,
  testCase: LoadedCase,
  workflowId: string,
): Promise<CaseWorker> {
  const { governance, starter, clock } = testCase;
  if (governance === undefined && starter === undefined && clock === undefined)
    return { taskQueue: stack.taskQueue, stop: async () => undefined };
  const key = starter !== undefined ? generateKeyPairSync('ed25519') : undefined;
  const approvals: ApprovalSettings | undefined =
    starter !== undefined && key !== undefined
      ? {
          keys: new Map([[starter.name, [publicKeyText(key.publicKey)]]]),
          groups: new Map(starter.groups.map((group) => [group, [starter.name]])),
        }
      : undefined;
  const worker = await stack.caseWorker({
    ...(governance !== undefined && { governance }),
    ...(approvals !== undefined && { approvals }),
    ...(clock !== undefined && { clock: caseClock(clock) }),
  });
  return {
    ...worker,
    ...(starter !== undefined && { startedBy: signStart(key?.privateKey, workflowId, starter.name) }),
  };
}
