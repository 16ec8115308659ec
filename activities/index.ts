// The activities of tideline, built from injected dependencies (clients per project, clock).
import type { ActivityDeps } from './deps';
import { createActionActivities } from './action-activities';
import { createWaitActivity } from './wait';
import { createLockActivities } from './lock-activities';
import { createVerifyApprovalActivity } from './approval-verify';
import { VERIFY_APPROVAL_ACTIVITY } from '../contract/approval-messages';
import { createNotifyActivities } from './notify';

export type {
  ActivityDeps,
  ApprovalSettings,
  CloudCaller,
  CloudClientResolver,
  Clock,
  NotificationSettings,
  NotificationTarget,
} from './deps';
export type { ActionActivityInput, ActionActivities } from './action-activities';
export type { WaitInput, WaitResult, WaitProgress } from './wait';

/** The activity type that polls a read action until a condition holds. */
export const WAIT_ACTIVITY = 'wait.until';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createActionActivities(deps),
    [WAIT_ACTIVITY]: createWaitActivity(deps),
    ...createLockActivities(),
    [VERIFY_APPROVAL_ACTIVITY]: createVerifyApprovalActivity(deps.approvals, deps.clock),
    ...createNotifyActivities(deps.notifications, deps.fetch),
  };
}

export type TidelineActivities = ReturnType<typeof createActivities>;
