// Where a case's run goes: the suite's worker, or — for a case that needs what a worker is
// configured with (the file's `governance`, a `starter` with groups, a `clock`) — a worker of its
// own. A starter gets a fresh Ed25519 key that only this worker registers, and the run's start
// is signed with it, as `tideline run --by NAME` signs it, so the worker verifies who started it.
import { generateKeyPairSync } from 'node:crypto';
import type { ApprovalSettings, Clock } from '../../activities/deps';
import { publicKeyText } from '../../activities/approval-keys';
import type { SignedStart } from '../../contract/approval-messages';
import { signStart } from '../approval-signing';
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
    ...(clock !== undefined && { clock: clockFrom(Date.parse(clock)) }),
  });
  return {
    ...worker,
    ...(starter !== undefined && { startedBy: signStart(key?.privateKey, workflowId, starter.name) }),
  };
}
