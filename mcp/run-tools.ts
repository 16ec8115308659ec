// The tools that read and act on runs already started: a run's state, the runs waiting for a
// person's approval, a run's step timeline and audit trail, and cancelling a run this agent started.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { printable } from '../cloud/printable';
import type { McpToolName } from './profiles';
import { runStateText, waitingText } from './run-text';
import { annotations, answer, guarded } from './tool-results';
import type { McpToolDeps } from './tools';

export type Registrar = (server: McpServer, deps: McpToolDeps) => void;

const RUN_ID = z.string().min(1).max(1000).describe('the run id, as start or list_waiting_approvals gave it');

type RunToolName = Extract<McpToolName, 'status' | 'list_waiting_approvals' | 'history' | 'audit' | 'cancel'>;

/** A tool that answers one of the run's records (deps.records) as the CLI reads it. */
function recordRegistrar(name: 'history' | 'audit', description: string): Registrar {
  return (server, deps) =>
    server.registerTool(
      name,
      { description, inputSchema: { runId: RUN_ID }, annotations: annotations(name) },
      ({ runId }) =>
        guarded(async () => {
          const record = await deps.records[name](runId);
          return answer(record.text, record.structured);
        }),
    );
}

export const RUN_REGISTRARS: Record<RunToolName, Registrar> = {
  status: (server, deps) =>
    server.registerTool(
      'status',
      {
        description:
          "A run's state: its steps, a pending approval (who must approve, and how), its failure or outputs.",
        inputSchema: { runId: RUN_ID },
        annotations: annotations('status'),
      },
      ({ runId }) =>
        guarded(async () => {
          const state = await (await deps.runs()).state(runId);
          return answer(runStateText(state), { ...state });
        }),
    ),
  list_waiting_approvals: (server, deps) =>
    server.registerTool(
      'list_waiting_approvals',
      {
        description:
          'The runs waiting for a person to approve, with who may approve each. Agents never approve.',
        annotations: annotations('list_waiting_approvals'),
      },
      () =>
        guarded(async () => {
          const waiting = await (await deps.runs()).waitingApprovals();
          return answer(waitingText(waiting), { waiting });
        }),
    ),
  cancel: (server, deps) =>
    server.registerTool(
      'cancel',
      {
        description: 'Cancels a run this agent started; the steps it completed are undone (compensated).',
        inputSchema: { runId: RUN_ID },
        annotations: annotations('cancel'),
      },
      ({ runId }) =>
        guarded(async () => {
          await (await deps.runs()).cancel(runId, deps.agent());
          return answer(`cancellation of run ${printable(runId)} requested; its completed steps are undone`, {
            runId,
            cancelled: true,
          });
        }),
    ),
  history: recordRegistrar(
    'history',
    "A run's step timeline, as `tideline history` shows it: each step's state, start, duration, the attempts its API call or wait took, why it failed, and the compensations that undid it.",
  ),
  audit: recordRegistrar(
    'audit',
    "A run's audit trail, as `tideline audit` shows it: who started it and whether a registered key verified the start, the policy rules that applied, and every approve or reject decision with who made it, the key id that signed it, and whether it was counted.",
  ),
};
