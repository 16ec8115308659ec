// The local cloud's error codes say "local cloud"; the SIMULATOR_* spelling they had is still
// matched for a release, so code comparing with it keeps working.
import { parseConfig } from '../../local-cloud/config';
import {
  deprecatedSpelling,
  hasLocalCloudCode,
  LOCAL_CLOUD_ERROR_CODES,
} from '../../local-cloud/error-codes';
import { isLocalCloudStartError } from '../../local-cloud/serve';

test('every code is spelled LOCAL_CLOUD_*, and its deprecated spelling SIMULATOR_*', () => {
  for (const code of LOCAL_CLOUD_ERROR_CODES) {
    expect(code).toMatch(/^LOCAL_CLOUD_[A-Z_]+$/);
    expect(deprecatedSpelling(code)).toBe(code.replace('LOCAL_CLOUD_', 'SIMULATOR_'));
  }
});

test('an invalid config is LOCAL_CLOUD_CONFIG_INVALID', () => {
  let thrown: unknown;
  try {
    parseConfig({ timeScale: 'fast' });
  } catch (error) {
    thrown = error;
  }
  expect((thrown as { code?: unknown }).code).toBe('LOCAL_CLOUD_CONFIG_INVALID');
  expect(hasLocalCloudCode(thrown, 'LOCAL_CLOUD_CONFIG_INVALID')).toBe(true);
});

test('a matcher accepts the current and the deprecated spelling, and nothing else', () => {
  expect(
    hasLocalCloudCode({ code: 'LOCAL_CLOUD_STATE_FILE_INVALID' }, 'LOCAL_CLOUD_STATE_FILE_INVALID'),
  ).toBe(true);
  expect(hasLocalCloudCode({ code: 'SIMULATOR_STATE_FILE_INVALID' }, 'LOCAL_CLOUD_STATE_FILE_INVALID')).toBe(
    true,
  );
  expect(hasLocalCloudCode({ code: 'SIMULATOR_CONFIG_INVALID' }, 'LOCAL_CLOUD_STATE_FILE_INVALID')).toBe(
    false,
  );
  expect(hasLocalCloudCode(undefined, 'LOCAL_CLOUD_USAGE')).toBe(false);
  expect(isLocalCloudStartError({ code: 'SIMULATOR_START_FAILED' })).toBe(true);
  expect(isLocalCloudStartError({ code: 'LOCAL_CLOUD_START_FAILED' })).toBe(true);
});
