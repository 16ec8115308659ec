// Calls one Cloud API action for an activity: validates the input against the operation's schemas,
// picks the project's client, and turns any error into a Temporal failure. Each request is a call
// span when tracing is on (activities/call-span.ts).
import type { ActionInput, ActionName, ActionOutput } from '../cloud/operations';
import { validateActionInput, type SplitInput } from '../cloud/action-input';
import type { ActivityDeps, CallOptions } from './deps';
import { inCallSpan } from './call-span';
import { activityFailure } from './failures';

/**
 * Throws ACTIVITY_INPUT_INVALID when the input breaks the action's request schema; otherwise gives
 * the checked input split for HTTP, which the client then sends without checking it again.
 */
export function assertValidInput(action: ActionName, input: Record<string, unknown>): SplitInput {
  const checked = validateActionInput(action, input);
  if (!checked.ok) {
    const problems = checked.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
    throw activityFailure('ACTIVITY_INPUT_INVALID', `invalid input for ${action}: ${problems}`);
  }
  return checked.value;
}

/** Calls the action with the client of the input's project. Errors are left as CloudApiErrors. */
export async function callAction<A extends ActionName>(
  deps: ActivityDeps,
  action: A,
  input: Record<string, unknown>,
  options: CallOptions,
): Promise<ActionOutput<A>> {
  const checkedInput = assertValidInput(action, input);
  const projectId = typeof input.project_id === 'string' ? input.project_id : undefined;
  const client = deps.clients.forProject(projectId);
  return inCallSpan(action, (onStatus) =>
    client.call(action, input as ActionInput<A>, { ...options, checkedInput, ...(onStatus && { onStatus }) }),
  );
}
