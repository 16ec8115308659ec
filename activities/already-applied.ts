// Retry safety for changes: a mutate or delete can take effect and still answer 5xx or time out.
// Its retry would then fail on the API's own rules (stop a PAUSED service → 400, attach twice →
// 409). So a retried attempt first reads the resource and, when the change already holds, reports
// success without sending it again. First attempts of normal activities always send (the API's
// answer stands); a local change checks on every attempt (activities/action-activities.ts).
// What to read and what must hold is each change's `alreadyApplied` fact in the catalogue
// (cloud/operations.ts); this module carries it out.
import { assertNever } from '../cloud/assert-never';
import { isCloudApiError } from '../cloud/errors';
import type { AlreadyApplied } from '../cloud/operation-facts';
import { ACTION_NAMES, operations, pathParamsFrom, type ActionName } from '../cloud/operations';
import type { ActivityDeps, CallOptions } from './deps';
import { callAction } from './call-action';

type Input = Record<string, unknown>;
/**
 * Answers what the step's output is when the change the input asks for is already in place (the
 * resource as it is now, or `{}` for a deletion), and `undefined` when it is not.
 */
type Check = (deps: ActivityDeps, input: Input, options: CallOptions) => Promise<Input | undefined>;
const when = <T extends object>(holds: boolean, value: T): T | undefined => (holds ? value : undefined);

/** Reads a resource; a 404 answers `undefined`. */
async function readOrGone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isCloudApiError(error) && error.code === 'CLOUD_API_NOT_FOUND') return undefined;
    throw error;
  }
}

/** The check a fact describes; `undefined` for `none`. */
function checkFor(fact: AlreadyApplied): Check | undefined {
  switch (fact.check) {
    case 'none':
      return undefined;
    case 'service':
      return async (deps, input, options) => {
        const service = await callAction(deps, 'service.get', pathParamsFrom('service.get', input), options);
        return when(fact.holds(service, input), service);
      };
    case 'vpc':
      return async (deps, input, options) => {
        const vpc = await callAction(deps, 'vpc.get', pathParamsFrom('vpc.get', input), options);
        return when(fact.holds(vpc, input), vpc);
      };
    case 'replicaSet':
      return async (deps, input, options) => {
        const params = pathParamsFrom('replicaSet.list', input);
        const sets = await callAction(deps, 'replicaSet.list', params, options);
        const set = sets.find((s) => s.id === input.replica_set_id);
        return when(fact.holds(set, input), set ?? {});
      };
    case 'gone':
      return async (deps, input, options) => {
        const found = (await readOrGone(() =>
          callAction(deps, fact.read, pathParamsFrom(fact.read, input), options),
        )) as { status?: unknown } | undefined;
        return when(found === undefined || fact.goneStatuses.includes(String(found.status)), {});
      };
    default:
      return assertNever(fact, 'already-applied check');
  }
}

/** The already-applied check of every change that has one (the catalogue's facts, carried out). */
export const ALREADY_APPLIED: Partial<Record<ActionName, Check>> = Object.fromEntries(
  ACTION_NAMES.flatMap((action) => {
    const check = checkFor(operations[action].alreadyApplied);
    return check === undefined ? [] : [[action, check]];
  }),
);
