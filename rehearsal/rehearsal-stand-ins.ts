// Who answers a rehearsal's approvals: stand-ins of the rehearsal, never people. A step without
// approvers takes anyone's decision, so one stand-in answers it. A step with approvers counts only
// decisions signed by one of them: the rehearsal's own worker (a case worker of its stack, never a
// production worker) registers a key for each stand-in and puts the stand-ins in every group an
// approval step lists, and a scripted `approve` is sent by as many distinct stand-ins as the
// step's `minApprovals`, so it meets the quorum as that many approvers would. A step that lists
// people only is answered in their names, with keys only the rehearsal's worker holds. A run with
// such steps is started by a stand-in starter of its own (a step with `allowSelfApproval: false`
// needs a verified starter), never one who decides, so self-approval refuses none of them. Pure.
import type { ApproveStepDefinition, RunbookDefinition } from '../dsl/definition';
import { keyedSteps } from './coverage';

/** The first stand-in; the others are `rehearsal-stand-in-2`, `-3`, … */
export const REHEARSAL_APPROVER = 'rehearsal-stand-in';

/** Who starts a rehearsal's run that has approval steps with approvers. */
export const REHEARSAL_STARTER = 'rehearsal-starter';

const GROUP = 'group:';

function standIn(nth: number): string {
  return nth === 1 ? REHEARSAL_APPROVER : `${REHEARSAL_APPROVER}-${nth}`;
}

/** Who approves the step in a rehearsal, in order: as many as its approval needs. */
export function standInsOf(step: Pick<ApproveStepDefinition, 'approvers' | 'minApprovals'>): string[] {
  if (step.approvers === undefined) return [REHEARSAL_APPROVER];
  const needed = step.minApprovals ?? 1;
  if (step.approvers.some((approver) => approver.startsWith(GROUP)))
    return Array.from({ length: needed }, (_, index) => standIn(index + 1));
  // A list of people alone reaches minApprovals (dsl/validator-approvals.ts).
  return step.approvers.slice(0, needed);
}

interface Scripted {
  step: string;
  decision: 'approve' | 'reject';
  by: string;
}

export interface StandInScript<A extends Scripted> {
  /** The decisions to send: an approval of a step with approvers once per stand-in it needs. */
  approvals: A[];
  /** The stand-ins the rehearsal's worker registers keys for, with their groups; none if none. */
  people?: Record<string, { groups: string[] }>;
  /** The stand-in who starts the run, when an approval step lists approvers. */
  starter?: { name: string; groups: string[] };
}

/** The approve step the scripted `step` names (by key or id), if any. */
function approveStep(definition: RunbookDefinition, step: string): ApproveStepDefinition | undefined {
  const found = keyedSteps(definition).find((entry) => entry.key === step || entry.step.id === step)?.step;
  return found?.kind === 'approve' ? found : undefined;
}

/** The rehearsal's scripted approvals as its stand-ins send them, and who they are. */
export function standInScript<A extends Scripted>(
  definition: RunbookDefinition,
  approvals: readonly A[],
): StandInScript<A> {
  const people = new Map<string, Set<string>>();
  const approvers = keyedSteps(definition).flatMap(({ step }) =>
    step.kind === 'approve' ? (step.approvers ?? []) : [],
  );
  const groups = approvers.flatMap((entry) => (entry.startsWith(GROUP) ? [entry.slice(GROUP.length)] : []));
  const sent = approvals.flatMap((approval) => {
    const step = approveStep(definition, approval.step);
    if (step?.approvers === undefined) return [{ ...approval, by: REHEARSAL_APPROVER }];
    const listsGroups = step.approvers.some((entry) => entry.startsWith(GROUP));
    const deciders = standInsOf(step);
    for (const name of deciders) people.set(name, new Set(listsGroups ? groups : []));
    // One approver's rejection rejects the step; an approval waits for the quorum.
    const by = approval.decision === 'approve' ? deciders : deciders.slice(0, 1);
    return by.map((name) => ({ ...approval, by: name }));
  });
  return {
    approvals: sent,
    ...(approvers.length > 0 && { starter: { name: REHEARSAL_STARTER, groups: [] } }),
    ...(people.size > 0 && {
      people: Object.fromEntries(
        [...people].map(([name, memberOf]) => [name, { groups: [...memberOf].sort() }]),
      ),
    }),
  };
}
