// .ci/run refuses to run when a variable would turn a gate into a mirror: recording workflow
// histories or regenerating the JSON Schemas during the test run. It says why and ends with the
// summary line CI reads, before anything is installed or run.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const CI_RUN = path.join(__dirname, '..', '..', '.ci', 'run');

describe('.ci/run', () => {
  it.each([
    ['TIDELINE_RECORD_HISTORIES', 'recording is never part of CI'],
    ['UPDATE_SCHEMA', 'regenerating schemas is never part of CI'],
  ])('refuses %s', (variable, reason) => {
    const run = spawnSync('bash', [CI_RUN], {
      env: { ...process.env, [variable]: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${variable} is set: ${reason}`);
    expect(run.stdout.trim()).toBe('0 passed, 1 failed');
  });
});
