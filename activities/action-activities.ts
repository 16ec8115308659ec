// One activity per Cloud API action, built from the operation catalogue. The activity type name is
// the action name (`service.create`), so the interpreter dispatches on the runbook's `call:`.
import { Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import type { ActionName } from '../cloud/operations';
import { ACTION_NAMES, operations } from '../cloud/operations';
import type { ActivityDeps, CallOptions } from './deps';
import { callAction } from './call-action';
import { ADOPTION_FINDERS, describeExisting, isCreateAction } from './create-or-adopt';
import { ALREADY_APPLIED } from './already-applied';
import { activityFailure, toActivityFailure, withCallAttempt } from './failures';
import { isCloudApiError } from '../cloud/errors';
import type { CallAttemptRequest } from '../contract/call-attempts';

export interface ActionActivityInput extends CallAttemptRequest {
  /** Path parameters and body/query fields in one flat object, as in a runbook's `with`. */
  input: Record<string, unknown>;
  /** For creates: use an existing resource of the same name instead of failing. */
  adoptExisting?: boolean;
  /**
   * An operator retried the step after it failed and held the run: an earlier activity may have
   * taken effect, so this one adopts (creates) or checks first (changes), like a retried attempt.
   */
  retried?: boolean;
}

export type ActionActivity = (args: ActionActivityInput) => Promise<unknown>;
export type ActionActivities = Record<ActionName, ActionActivity>;

/** A created resource that an earlier attempt (or the runbook's `adopt`) made us take over. */
export interface AdoptedMarker {
  adopted: true;
}

/**
 * The call, reporting its attempt when the run asks (contract/call-attempts.ts): its answer as
 * `{ value, attempt }`, and the step and attempt in the details of any failure it raises.
 */
function createActionActivity(deps: ActivityDeps, action: ActionName): ActionActivity {
  const call = callOnce(deps, action);
  return async (args) => {
    const step = args.recordAttemptsFor;
    if (step === undefined) return call(args);
    const attempt = Context.current().info.attempt;
    try {
      return { value: await call(args), attempt };
    } catch (error) {
      throw withCallAttempt(error, { step, attempt });
    }
  };
}

function callOnce(deps: ActivityDeps, action: ActionName): ActionActivity {
  return async ({ input, adoptExisting, retried }) => {
    const ctx = Context.current();
    // A retry may follow an attempt that took effect yet failed, so it checks whether the change
    // already holds before sending it. A local activity cannot tell its first execution from one
    // re-run after a worker died before its result reached the history (the re-run starts again at
    // attempt 1); checking first on every local change would cost a read per change, so its first
    // attempt sends, and checks only when the API refuses the change as one it cannot make again
    // (stop a PAUSED service → 400, attach twice → 409, delete a deleted one → 404). Creates never
    // run locally (workflows/activity-policies.ts): a first attempt must tell a name taken by
    // someone else.
    const retry = ctx.info.attempt > 1 || retried === true;
    const again = retry || ctx.info.isLocal;
    // A local change in flight when its run is cancelled finishes its request (a normal activity
    // never hears of the cancel: calls do not heartbeat), so compensation starts after it landed.
    const settles = ctx.info.isLocal && operations[action].kind !== 'read';
    const options = settles ? {} : { signal: ctx.cancellationSignal };
    try {
      if (isCreateAction(action)) {
        const existing = await ADOPTION_FINDERS[action](deps, input, options);
        if (existing !== undefined) {
          if (again || adoptExisting) {
            ctx.log.info('adopting a resource created earlier', { action, attempt: ctx.info.attempt });
            return { ...existing, adopted: true };
          }
          throw activityFailure(
            'RESOURCE_NAME_TAKEN',
            `${action}: ${describeExisting(action, input)}; choose another name, or set \`adopt: true\` on the step to take it over`,
          );
        }
      }
      const check = ALREADY_APPLIED[action];
      const appliedBefore = check !== undefined && retry ? await check(deps, input, options) : undefined;
      if (appliedBefore !== undefined) return alreadyApplied(action, appliedBefore);
      // Cancelled before the change was sent: nothing to settle, so nothing is sent.
      if (settles && ctx.cancellationSignal.aborted) throw new CancelledFailure('call cancelled');
      let result: unknown;
      try {
        result = await callAction(deps, action, input, options);
      } catch (error) {
        const appliedAfter =
          check !== undefined && ctx.info.isLocal && !retry && refusedAsMadeAgain(error)
            ? await check(deps, input, options)
            : undefined;
        if (appliedAfter !== undefined) return alreadyApplied(action, appliedAfter);
        throw error;
      }
      return (await readBackWhenOnlyAMessage(deps, action, input, result, options)) ?? {};
    } catch (error) {
      if (error instanceof CancelledFailure) throw error;
      throw toActivityFailure(error);
    }
  };
}

function alreadyApplied(action: ActionName, applied: Record<string, unknown>): Record<string, unknown> {
  const ctx = Context.current();
  ctx.log.info('the change took effect on an earlier attempt', { action, attempt: ctx.info.attempt });
  return { ...applied, alreadyApplied: true };
}

/** The API's answers to a change it cannot make again: an illegal transition, a conflict, a resource gone. */
function refusedAsMadeAgain(error: unknown): boolean {
  return (
    isCloudApiError(error) &&
    (error.code === 'CLOUD_API_BAD_REQUEST' ||
      error.code === 'CLOUD_API_CONFLICT' ||
      error.code === 'CLOUD_API_NOT_FOUND')
  );
}

/**
 * The resource itself when the API answered a change with only `{message}` (its current dialect
 * does for some changes that spec.md answers with the resource), read with the catalogue's readBack.
 */
async function readBackWhenOnlyAMessage(
  deps: ActivityDeps,
  action: ActionName,
  input: Record<string, unknown>,
  result: unknown,
  options: CallOptions,
): Promise<unknown> {
  const readBack = operations[action].readBack;
  if (readBack === undefined || !Object.hasOwn(operations, readBack)) return result;
  const answer = (result ?? {}) as Record<string, unknown>;
  const onlyMessage = Object.keys(answer).every((key) => key === 'message');
  if (!onlyMessage) return withoutMessage(answer);
  const read = readBack as ActionName;
  const params = Object.fromEntries(operations[read].pathParams.map((name) => [name, input[name]]));
  return callAction(deps, read, params, options);
}

function withoutMessage(answer: Record<string, unknown>): Record<string, unknown> {
  const { message: _message, ...rest } = answer;
  return rest;
}

export function createActionActivities(deps: ActivityDeps): ActionActivities {
  return Object.fromEntries(
    ACTION_NAMES.map((action) => [action, createActionActivity(deps, action)]),
  ) as ActionActivities;
}
