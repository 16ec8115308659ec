// The stable codes of the local cloud's own errors (its flags, config file, state file, start-up;
// the API's answers are in errors.ts). They were spelled SIMULATOR_* before the local cloud had its
// name: for a release, code that matches on a code accepts the old spelling too.
export const LOCAL_CLOUD_ERROR_CODES = [
  'LOCAL_CLOUD_USAGE',
  'LOCAL_CLOUD_CONFIG_INVALID',
  'LOCAL_CLOUD_STATE_FILE_INVALID',
  'LOCAL_CLOUD_STATE_FILE_WRITE_FAILED',
  'LOCAL_CLOUD_START_FAILED',
] as const;
export type LocalCloudErrorCode = (typeof LOCAL_CLOUD_ERROR_CODES)[number];

/** The deprecated spelling of a code: `SIMULATOR_CONFIG_INVALID` for `LOCAL_CLOUD_CONFIG_INVALID`. */
export function deprecatedSpelling(code: LocalCloudErrorCode): string {
  return code.replace(/^LOCAL_CLOUD_/, 'SIMULATOR_');
}

/** Whether `error` carries `code`, in its current or its deprecated spelling. */
export function hasLocalCloudCode(error: unknown, code: LocalCloudErrorCode): boolean {
  const actual = (error as { code?: unknown } | null | undefined)?.code;
  return actual === code || actual === deprecatedSpelling(code);
}
