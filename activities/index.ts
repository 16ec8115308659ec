// The activities of tideline, built from injected dependencies (clients per project, clock).
import type { ActivityDeps } from './deps';
import { createActionActivities } from './action-activities';
import { createWaitActivity } from './wait';
import { createLockActivities } from './lock-activities';
import { createVerifyApprovalActivity } from './approval-verify';
import { createVerifyHoldActionActivity } from './hold-judge';
import { VERIFY_APPROVAL_ACTIVITY, VERIFY_HOLD_ACTION_ACTIVITY } from '../contract/approval-messages';
import { ADMIT_RUN_ACTIVITY } from '../contract/admission-messages';
import { createAdmitRunActivity } from './admission';
import { CHECK_STEP_POLICY_ACTIVITY } from '../contract/policy-messages';
import { createCheckStepPolicyActivity } from './policy-check';
import { createNotifyActivities } from './notify';
import { WAIT_ACTIVITY } from '../contract/wait-activity';
import { createDriftWatchActivities } from './drift-watch';

export type {
  ActivityDeps,
  ApprovalSettings,
  CatalogSettings,
  CloudCaller,
  CloudClientResolver,
  Clock,
  DriftWatchSettings,
  NotificationSettings,
  NotificationTarget,
} from './deps';
export type { ActionActivityInput, ActionActivities } from './action-activities';
export type { WaitInput, WaitResult, WaitProgress } from './wait';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createActionActivities(deps),
    [WAIT_ACTIVITY]: createWaitActivity(deps),
    ...createLockActivities(),
    [VERIFY_APPROVAL_ACTIVITY]: createVerifyApprovalActivity(deps.approvals, deps.clock),
    [VERIFY_HOLD_ACTION_ACTIVITY]: createVerifyHoldActionActivity(
      deps.approvals,
      deps.governance,
      deps.clients,
      deps.clock,
      deps.policyClock ?? deps.clock,
    ),
    [ADMIT_RUN_ACTIVITY]: createAdmitRunActivity(
      deps.catalog,
      deps.approvals,
      deps.governance,
      deps.policyClock ?? deps.clock,
      deps.notifications,
      deps.startLedger,
    ),
    [CHECK_STEP_POLICY_ACTIVITY]: createCheckStepPolicyActivity(
      deps.governance,
      deps.clients,
      deps.policyClock ?? deps.clock,
    ),
    ...createNotifyActivities(deps.notifications, deps.fetch),
    ...createDriftWatchActivities(deps.drift, deps.notifications, deps.fetch),
  };
}

export type TidelineActivities = ReturnType<typeof createActivities>;
