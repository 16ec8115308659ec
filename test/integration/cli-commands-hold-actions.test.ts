// The real `tideline` binary on a held run: `run --on-failure hold` stops following a
// held run with exit 5 and the three commands; `status` shows them; `retry` (with a changed
// input), `skip` and `rollback` act on it, refuse wrong actions with exit 1 (2 for bad usage),
// and what operators did shows in the report and in `history`; `rerun` keeps secret inputs; a
// schedule's runs hold with --on-failure hold and --pause-on-failure still pauses it.
import path from 'node:path';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import { REPO_ROOT } from '../helpers/worker-process';
import { useCliStack } from '../helpers/cli-stack';

const fixture = (name: string) =>
  path.relative(REPO_ROOT, path.join(REPO_ROOT, 'test', 'fixtures', 'hold', `${name}.yaml`));
const FIXTURE = fixture('cli-hold');

describe('tideline retry | skip | rollback on a held run', () => {
  const cli = useCliStack();
  const { tideline } = cli;

  test('run holds with exit 5; status shows the commands; retry with a changed input completes', async () => {
    const run = await tideline('run', FIXTURE, '--on-failure', 'hold', '--id', 'cli-held-1');
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/is held at a failed step \(run cli-held-1\)/);
    expect(run.stdout).toMatch(/held at step gate: ASSERTION_FAILED: go is false/);
    expect(run.stdout).toMatch(/retry: +node bin\/tideline\.js retry cli-held-1 --step gate/);
    expect(run.stdout).toMatch(/skip: +node bin\/tideline\.js skip cli-held-1 --step gate --output '\{\}'/);
    expect(run.stdout).toMatch(/rollback: node bin\/tideline\.js rollback cli-held-1/);

    const status = await tideline('status', 'cli-held-1', '--once');
    expect(status.code).toBe(5);
    expect(status.stdout).toMatch(/held at step gate/);
    const json = jsonOutput<{ status: string; held: { stepKey: string }[] }>(
      await tideline('status', 'cli-held-1', '--once', '--json'),
    );
    expect(json).toMatchObject({ status: 'held', held: [{ stepKey: 'gate' }] });

    const wrongStep = await tideline('retry', 'cli-held-1', '--step', 'first');
    expect(wrongStep.code).toBe(1);
    expect(wrongStep.stderr).toMatch(/step "first" is not held; held: gate/);
    const badInput = await tideline('retry', 'cli-held-1', '-i', 'go=maybe');
    expect(badInput.code).toBe(1);
    expect(badInput.stderr).toMatch(/invalid inputs: input `go`/);
    const noWith = await tideline('retry', 'cli-held-1', '--with', '{"x":1}');
    expect(noWith.code).toBe(1);
    expect(noWith.stderr).toMatch(/step gate has no `with` to change/);
    const withList = await tideline('retry', 'cli-held-1', '--with', '[1]');
    expect(withList.code).toBe(2);
    expect(withList.stderr).toMatch(/--with must be a JSON object/);
    const notJson = await tideline('skip', 'cli-held-1', '--step', 'gate', '--output', '{nope');
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--output must be JSON/);

    const retry = await tideline(
      'retry',
      'cli-held-1',
      '-i',
      'go=true',
      '--by',
      'erin',
      '-m',
      'flag flipped',
    );
    expect(retry.code).toBe(0);
    expect(retry.stdout).toMatch(/retry gate of run cli-held-1 \(by erin\); the run goes on/);
    const done = await tideline('status', 'cli-held-1');
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/operator: .*retry gate by erin \(inputs changed: go\): flag flipped/);
    // history lists what operators did too, as text and as JSON.
    const history = await tideline('history', 'cli-held-1');
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(
      /operator actions on the held run:\n.*retry gate by erin \(inputs changed: go\): flag flipped/,
    );
    const historyJson = jsonOutput<{
      actions: { action: string; stepKey: string; by: string; reason: string }[];
    }>(await tideline('history', 'cli-held-1', '--json'));
    expect(historyJson.actions).toEqual([
      expect.objectContaining({
        action: 'retry',
        stepKey: 'gate',
        by: 'erin',
        reason: 'flag flipped',
        inputs: ['go'],
      }),
    ]);

    const ended = await tideline('rollback', 'cli-held-1');
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/has already ended \(succeeded\); there is nothing to roll back/);
  }, 90_000);

  test('list --held finds a held run; rollback compensates and fails it; rerun starts it anew; skip goes on', async () => {
    expect((await tideline('run', FIXTURE, '--on-failure', 'hold', '--id', 'cli-held-2')).code).toBe(5);
    // list --held asks each running run for its progress: no visibility lag for the filter itself,
    // but the run must be visible first.
    let listed: { runs: { workflowId: string; status: string }[] } = { runs: [] };
    for (
      let attempt = 0;
      attempt < 40 && !listed.runs.some((r) => r.workflowId === 'cli-held-2');
      attempt++
    ) {
      listed = jsonOutput(await tideline('list', '--held', '--json'));
      if (!listed.runs.some((r) => r.workflowId === 'cli-held-2'))
        await new Promise((r) => setTimeout(r, 250));
    }
    expect(listed.runs).toContainEqual(expect.objectContaining({ workflowId: 'cli-held-2', status: 'held' }));
    const stillRunning = await tideline('rerun', 'cli-held-2');
    expect(stillRunning.code).toBe(1);
    expect(stillRunning.stderr).toMatch(/run cli-held-2 is still running/);
    const rollback = await tideline('rollback', 'cli-held-2', '--by', 'frank', '-m', 'not today');
    expect(rollback.code).toBe(0);
    const failed = await tideline('status', 'cli-held-2');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/compensated \(undone\): first/);
    expect(failed.stdout).toMatch(/operator: .*rollback gate by frank: not today/);
    // rerun: the same pinned definition and inputs, one changed; a new run that succeeds.
    const rerun = await tideline('rerun', 'cli-held-2', '-i', 'go=true', '--id', 'cli-rerun-2');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(/rerunning cli-hold \(run cli-held-2, failed\)/);
    expect(rerun.stdout).toMatch(/✓ cli-hold succeeded .*\(run cli-rerun-2\)/);
    const list = jsonOutput<{ runs: unknown[] }>(await tideline('list', '--held', '--json'));
    expect(list.runs).not.toContainEqual(expect.objectContaining({ workflowId: 'cli-held-2' }));

    expect((await tideline('run', FIXTURE, '--on-failure', 'hold', '--id', 'cli-held-3')).code).toBe(5);
    const skip = await tideline('skip', 'cli-held-3', '--step', 'gate', '--output', 'true');
    expect(skip.code).toBe(0);
    expect((await tideline('status', 'cli-held-3')).code).toBe(0);
  }, 90_000);

  test('rerun keeps a secret input it is not given again, and prints it nowhere', async () => {
    const secret = 'rerun-kept-4711';
    const first = await runTideline(['run', fixture('rerun-secret'), '--id', 'cli-secret-1', ...cli.flags], {
      env: { TIDELINE_INPUT_TOKEN: secret },
    });
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/go is false/);
    // Only go changes: the token comes from the ended run's stored (encrypted) input.
    const rerun = await tideline('rerun', 'cli-secret-1', '-i', 'go=true', '--id', 'cli-secret-2');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(/✓ rerun-secret succeeded .*\(run cli-secret-2\)/);
    const seen = [first, rerun, await tideline('status', 'cli-secret-2', '--once', '--json')];
    seen.push(await tideline('history', 'cli-secret-2', '--json'));
    for (const result of seen) expect(result.stdout + result.stderr).not.toContain(secret);
    // A wrong token given again is used instead, and the gate fails.
    const wrong = await runTideline(
      ['rerun', 'cli-secret-1', '-i', 'go=true', '--id', 'cli-secret-3', ...cli.flags],
      { env: { TIDELINE_INPUT_TOKEN: 'not-the-token' } },
    );
    expect(wrong.code).toBe(1);
  }, 60_000);

  test('skip refuses an output without a field a later step reads (exit 1); with it the run goes on', async () => {
    expect((await tideline('run', fixture('cli-skip'), '--id', 'cli-skip-1')).code).toBe(5);
    const lacking = await tideline('skip', 'cli-skip-1', '--step', 'gate', '--output', '{"id":"x"}');
    expect(lacking.code).toBe(1);
    expect(lacking.stderr).toMatch(/lacks `ticket`, which a later step reads as steps\.gate\.output\.ticket/);
    const skipped = await tideline(
      'skip',
      'cli-skip-1',
      '--step',
      'gate',
      '--output',
      '{"ticket":"OPS-12"}',
      '-m',
      'opened by hand',
    );
    expect(skipped.code).toBe(0);
    const done = jsonOutput<{ status: string; outputs: Record<string, unknown> }>(
      await tideline('status', 'cli-skip-1', '--json'),
    );
    expect(done).toMatchObject({ status: 'succeeded', outputs: { ticket: 'OPS-12' } });
  }, 60_000);

  test('a schedule with --on-failure hold: its run holds; rolled back, --pause-on-failure pauses the schedule', async () => {
    const created = await tideline(
      'schedule',
      'create',
      'cli-hold-nightly',
      '-r',
      FIXTURE,
      '--every',
      '30d',
      '--on-failure',
      'hold',
      '--pause-on-failure',
    );
    expect(created.code).toBe(0);
    const triggered = jsonOutput<{ workflowId: string }>(
      await tideline('schedule', 'trigger', 'cli-hold-nightly', '--json'),
    );
    // status follows the scheduled run until it holds (exit 5), like a run started by `run`.
    const held = await tideline('status', triggered.workflowId);
    expect(held.code).toBe(5);
    expect(held.stdout).toMatch(/held at step gate: ASSERTION_FAILED: go is false/);
    expect((await tideline('rollback', triggered.workflowId, '-m', 'not tonight')).code).toBe(0);
    expect((await tideline('status', triggered.workflowId)).code).toBe(1);
    // The schedule hears of the failed run from its watcher, then pauses itself.
    type Described = { onFailure: string; pauseOnFailure: boolean; paused: boolean };
    let described: Described | undefined;
    for (let attempt = 0; attempt < 120 && described?.paused !== true; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 250));
      described = jsonOutput<Described>(await tideline('schedule', 'describe', 'cli-hold-nightly', '--json'));
    }
    expect(described).toMatchObject({ onFailure: 'hold', pauseOnFailure: true, paused: true });
    expect((await tideline('schedule', 'delete', 'cli-hold-nightly')).code).toBe(0);
  }, 120_000);
});
