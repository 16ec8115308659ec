// The ledger of start signatures (activities/start-once.ts), kept in Temporal so every worker of
// the namespace shares it: claiming a signature starts a claim workflow whose id is the signature's
// key, refused if a workflow of that id runs or ran (REJECT_DUPLICATE, kept for the namespace's
// retention, far beyond a signature's ten minutes). The claim runs on a task queue no worker polls
// and times out once the signature has expired, so nothing executes it: its start event is the
// record, and its memo says which run claimed it, so a retried claim by that run still holds.
import type { Client } from '@temporalio/client';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { RunbookWorkflowInput } from '../contract/run-messages';
import { isAlreadyStarted } from '../contract/workflow-types';
import type { LiveSchedule, StartLedger } from '../activities/start-once';

/** The workflow type of a claim; no worker registers it (nothing runs it). */
export const START_CLAIM_WORKFLOW_TYPE = 'tidelineStartSignatureClaim';
/** The task queue of claims, which no worker polls. */
export const START_CLAIM_TASK_QUEUE = 'tideline-start-signature-claims';
const CLAIM_ID_PREFIX = 'tideline-start-signature-';
/** The shortest a claim is kept open (Temporal refuses a zero timeout). */
const MIN_CLAIM_MS = 60_000;

export function temporalStartLedger(client: Client, now: () => number = Date.now): StartLedger {
  return {
    async claim({ key, runId, holdUntil }) {
      const workflowId = `${CLAIM_ID_PREFIX}${key}`;
      try {
        await client.workflow.start(START_CLAIM_WORKFLOW_TYPE, {
          taskQueue: START_CLAIM_TASK_QUEUE,
          workflowId,
          args: [],
          memo: { runId },
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          workflowIdConflictPolicy: 'FAIL',
          workflowExecutionTimeout: Math.max(MIN_CLAIM_MS, holdUntil - now()),
          staticSummary: 'a start signature, claimed by one run',
        });
        return 'claimed';
      } catch (error) {
        if (!isAlreadyStarted(error)) throw error;
        const held = await client.workflow.getHandle(workflowId).describe();
        return held.memo?.runId === runId ? 'claimed' : 'taken';
      }
    },
    async schedule(scheduleId): Promise<LiveSchedule | undefined> {
      try {
        const described = await client.schedule.getHandle(scheduleId).describe();
        const action = described.action;
        const input =
          action.type === 'startWorkflow'
            ? (action.args?.[0] as Partial<RunbookWorkflowInput> | undefined)
            : undefined;
        return { createdAt: described.info.createdAt.getTime(), startedBy: input?.startedBy };
      } catch (error) {
        if (error instanceof ScheduleNotFoundError) return undefined;
        throw error;
      }
    },
  };
}
