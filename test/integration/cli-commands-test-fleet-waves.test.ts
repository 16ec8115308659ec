// `tideline test` rehearses a fleet resize in waves gated on metrics: twenty services, five per
// wave, each watched on its CPU; a metric anomaly on a service of the second wave starts no later
// wave and every resize is undone, that service's included. Rehearsed twice: the same every time.
import path from 'node:path';
import { runTideline } from '../helpers/cli-process';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'fleet', 'resize-in-waves.test.yaml');

beforeAll(async () => {
  await buildDist();
}, 240_000);

test('a CPU anomaly in wave 2 stops the waves and resizes back, the same every time', async () => {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const result = await runTideline(['test', FIXTURE], { timeoutMs: 300_000 });
    expect({ attempt, code: result.code, stderr: result.stderr }).toEqual({ attempt, code: 0, stderr: '' });
    expect(result.stdout).toContain(
      '✓ a CPU anomaly in wave 2 starts no later wave and resizes that service back',
    );
    expect(result.stdout).toMatch(/^2 passed \(2 cases in \S+\)$/m);
  }
}, 660_000);
