// The CLI view through the real `tideline` process on a dev stack: a run queued on
// another run's service lock says so in its piped log, in `status --once` (text and JSON) and in
// its report's timing; a finished run's piped `status` keeps each step's own lines and says which
// steps never ran; a start under a running run's id is refused; `--help` keeps a wrapped
// description together.
import path from 'node:path';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { progressQuery } from '../../contract/run-messages';
import { jsonOutput, runTideline, startCli, type CliResult } from '../helpers/cli-process';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { buildDist, REPO_ROOT, testKeyRing } from '../helpers/worker-process';

const HOLD = path.join(REPO_ROOT, 'test', 'fixtures', 'locks', 'hold-service.yaml');
const FAIL = path.join(REPO_ROOT, 'test', 'fixtures', 'cli', 'fail.yaml');
const relative = (file: string): string => path.relative(REPO_ROOT, file);

describe('the CLI view of a run', () => {
  let stack: RunbookStack;
  let flags: string[];
  let serviceId: string;
  const tideline = (...args: string[]): Promise<CliResult> => runTideline([...args, ...flags]);

  beforeAll(async () => {
    await buildDist();
    stack = await startRunbookStack({ timeScale: 0.02 }, { keyRing: testKeyRing });
    flags = ['--address', stack.server.address, '--task-queue', stack.taskQueue];
    const created = await stack.api.service.create({ project_id: stack.projectId, name: 'locked' });
    serviceId = created.service_id!;
    await pollUntil(
      'the service to be READY',
      () => stack.api.service.get({ project_id: stack.projectId, service_id: serviceId }),
      (service) => service.status === 'READY',
      60_000,
    );
  }, 240_000);
  afterAll(async () => stack?.close());

  test('a run queued on a service lock says what it waits for, while it waits and in its report', async () => {
    const lock = `service/${stack.projectId}/${serviceId}`;
    const inputs = { project_id: stack.projectId, service_id: serviceId };
    /** `tideline run` of the lock runbook on the service, as run `id`. */
    const runHold = (id: string, ...more: string[]): string[] => [
      'run',
      relative(HOLD),
      ...Object.entries(inputs).flatMap(([name, value]) => ['-i', `${name}=${value}`]),
      ...more,
      '--id',
      id,
    ];
    // The first run holds the service's lock until it is cancelled: the second waits for as long.
    const holder = await stack.start(HOLD, { ...inputs, hold: '1h' }, 'cli-view-holder');
    await pollUntil(
      'the first run to hold the lock',
      () => holder.query(progressQuery),
      (p) => (p.locks ?? []).includes(lock),
      60_000,
    );

    // A second start under the running holder's id is refused: no second run, no lock request.
    const holderRun = (await holder.describe()).runId;
    const again = await tideline(...runHold('cli-view-holder'));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a run with id "cli-view-holder" is already running');
    expect(again.stderr).toContain('status cli-view-holder');
    expect(again.stderr).not.toMatch(/^\s+at /m);
    const latest = await holder.describe();
    expect(latest.runId).toBe(holderRun);
    expect(latest.status.name).toBe('RUNNING');

    const id = 'cli-view-queued';
    const queued = startCli([...runHold(id, '-i', 'hold=1ms'), ...flags], { timeoutMs: 120_000 });
    await queued.waitForStdout(new RegExp(`^\\d\\d:\\d\\d:\\d\\d waiting for lock ${lock}$`, 'm'));

    const once = await tideline('status', id, '--once');
    expect(once.code).toBe(0);
    expect(once.stdout).toContain(`waiting for lock ${lock}`);
    const json = jsonOutput<{ waitingForLock: string | null; lockWaits: { requestedAt: string }[] }>(
      await tideline('status', id, '--once', '--json'),
    );
    expect(json.waitingForLock).toBe(lock);
    // The report names lock waits of a second or more (shorter ones are the request's round trip):
    // let this one pass that, measured from when the run asked for the lock.
    const requestedAt = Date.parse(json.lockWaits[0]?.requestedAt ?? '');
    expect(requestedAt).not.toBeNaN();
    await pollUntil(
      'the queued run to have waited over a second',
      async () => Date.now(),
      (now) => now - requestedAt > 1_500,
      30_000,
    );

    await holder.cancel();
    const result = await queued.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d lock ${lock} acquired$`, 'm'));
    expect(result.stdout).toMatch(
      new RegExp(
        `✓ hold-service succeeded in [\\d.]+m?s \\([\\d.]+m?s of it waiting for lock ${lock}\\) \\(run ${id}\\)`,
      ),
    );
  }, 180_000);

  test('piped status of a finished run: its steps as they went, and the ones it never reached', async () => {
    const id = 'cli-view-failed';
    const run = await tideline('run', relative(FAIL), '--id', id);
    expect(run.code).toBe(1);
    const status = await tideline('status', id);
    expect(status.code).toBe(1);
    const lines = status.stdout.split('\n');
    const at = (pattern: RegExp): number => lines.findIndex((line) => pattern.test(line));
    expect(at(/^\d\d:\d\d:\d\d prepare done$/)).toBeGreaterThanOrEqual(0);
    expect(at(/^\d\d:\d\d:\d\d prepare done$/)).toBeLessThan(at(/^\d\d:\d\d:\d\d prepare compensated/));
    expect(at(/^\d\d:\d\d:\d\d never not run$/)).toBeGreaterThan(0);
    expect(status.stdout).not.toMatch(/ pending\b/);
  }, 120_000);

  test('--help prints a wrapped description as one paragraph', async () => {
    const help = await runTideline(['status', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Shows the steps of run ID with their state and elapsed time, what a wait is waiting for, and a\npending approval',
    );
  }, 60_000);
});
