// The activity type that polls a read action until a condition holds (`wait` steps) or for a
// period (`watch` steps): the worker registers it under this name, workflow code schedules it.

export const WAIT_ACTIVITY = 'wait.until';
