// `tideline demo` through the real binary: the dev stack comes up on free ports, the shipped
// provision-production-service runbook runs to the end against the local cloud, the output says
// what happened and where to look (secrets masked), and everything is stopped before it exits 0.
import { isPortFree } from '../../stack/ports';
import { runTideline } from '../helpers/cli-process';
import { buildDist } from '../helpers/worker-process';

jest.setTimeout(300_000);

describe('tideline demo', () => {
  beforeAll(() => buildDist(), 300_000);

  test('provisions a production service end to end and exits 0 with everything stopped', async () => {
    const result = await runTideline(['demo', '--time-scale', '0.05', '--name', 'demo-orders'], {
      timeoutMs: 240_000,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const out = result.stdout;
    expect(out).toMatch(/created VPC \d+ \(10\.0\.0\.0\/16\)/);
    expect(out).toMatch(
      /✓ provision-production-service succeeded .*\(run provision-production-service-[0-9a-f]{6}\)/,
    );
    for (const step of ['create', 'ready', 'attach', 'attached', 'pooler', 'pooler_ready', 'prod']) {
      expect(out).toMatch(new RegExp(`${step} done`));
    }
    expect(out).toMatch(/password\s+••••••/);
    expect(out).toMatch(/service\s+demo-orders \(\w+\): READY, environment PROD/);
    expect(out).toMatch(/VPC endpoint \S+:\d+ \(VPC \d+\)/);
    const link =
      /the run in the Web UI: (http:\/\/127\.0\.0\.1:(\d+)\/namespaces\/default\/workflows\/provision-production-service-[0-9a-f]{6})/.exec(
        out,
      );
    expect(link).not.toBeNull();
    // The stack is gone: its Temporal and Web UI ports are free again.
    const temporalPort = Number(/a local Temporal \(127\.0\.0\.1:(\d+)\)/.exec(out)?.[1]);
    expect(await isPortFree(temporalPort)).toBe(true);
    expect(await isPortFree(Number(link?.[2]))).toBe(true);
    expect(out).toContain('stopping the demo stack');
  });

  test('a bad flag is exit 2 before anything starts', async () => {
    const result = await runTideline(['demo', '--name', 'Not A Name'], { timeoutMs: 60_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--name "Not A Name" is not a valid service name');
    expect(result.stdout).toBe('');
  });
});
