// `tideline test --dialect`: the cases' local clouds answer as the real API does today unless
// asked for spec.md's dialect. A case that expects the current answer (a service without add-ons
// is TIMESCALEDB) passes by default and fails with `--dialect seed`, where the same service is
// NEUTRALDB; a dialect that does not exist is a usage error before anything runs.
import path from 'node:path';
import { runTideline } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const CASES = path.relative(REPO_ROOT, path.join(REPO_ROOT, 'test', 'fixtures', 'dialect'));

beforeAll(async () => {
  await buildDist();
}, 240_000);

test('the current dialect by default: the case expecting its answer passes', async () => {
  const result = await runTideline(['test', CASES, '--no-coverage'], { timeoutMs: 180_000 });
  expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toMatchObject({ code: 0 });
  expect(result.stdout).toMatch(/^✓ a service without add-ons is answered as TIMESCALEDB/m);
}, 240_000);

test('--dialect seed: the same case sees NEUTRALDB, at its place in the test file', async () => {
  const result = await runTideline(['test', CASES, '--no-coverage', '--dialect', 'seed'], {
    timeoutMs: 180_000,
  });
  expect({ code: result.code, stdout: result.stdout }).toMatchObject({ code: 1 });
  expect(result.stdout).toMatch(
    /^ {4}\S*service-type\.test\.yaml:14:\d+: outputs\.service_type: expected TIMESCALEDB, got NEUTRALDB$/m,
  );
}, 240_000);

test('a dialect that does not exist is refused before anything runs', async () => {
  const result = await runTideline(['test', CASES, '--dialect', 'v2'], { timeoutMs: 60_000 });
  expect(result).toMatchObject({ code: 2, stdout: '' });
  expect(result.stderr).toContain('--dialect must be one of seed, current');
});
