// The real `tideline` binary against a dev stack (Temporal dev server, local cloud, in-process
// worker with the same encryption keys): run, status, approve/reject, cancel, Ctrl-C detach, list
// and history, in plain (non-TTY) and --json output, with their exit codes.
import path from 'node:path';
import { createVpc } from '../helpers/runbook-fixtures';
import { jsonOutput, runTideline, startCli, type CliResult } from '../helpers/cli-process';
import { REPO_ROOT } from '../helpers/worker-process';
import { provisionRunArgs, useCliStack } from '../helpers/cli-stack';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'cli');
const fixture = (name: string): string => path.relative(REPO_ROOT, path.join(FIXTURES, name));

interface RunJson {
  workflowId: string;
  runbook: string | null;
  status: string;
  steps: { key: string; name?: string; status: string; durationMs?: number }[];
  outputs: Record<string, unknown>;
  failure: { stepKey?: string; type: string; message: string } | null;
  pendingApproval: { stepKey: string; message: string } | null;
}

describe('tideline CLI against a dev stack', () => {
  const cli = useCliStack();
  const { tideline } = cli;

  /** Polls `status ID --once --json` until `done` holds. */
  async function statusUntil(id: string, done: (run: RunJson) => boolean): Promise<RunJson> {
    for (let attempt = 0; attempt < 60; attempt++) {
      const result = await tideline('status', id, '--once', '--json');
      const run = jsonOutput<RunJson>(result);
      if (done(run)) return run;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`run ${id} never reached the expected state`);
  }

  test('run: plain progress lines, outputs with the secret masked, exit 0', async () => {
    // The secret input comes from the environment, as the CLI recommends (no warning then).
    const result = await runTideline(['run', fixture('quick.yaml'), '-i', 'greeting=hi', ...cli.flags], {
      env: { TIDELINE_INPUT_TOKEN: 's3cr3t-value' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^started cli-quick as run cli-quick-[0-9a-f]{6} on task queue/m);
    // Only lines every run prints: a poll may miss a short step's `running` state on a loaded
    // machine (the running line's format is covered by test/unit/cli-output.test.ts).
    expect(result.stdout).toMatch(/^\d\d:\d\d:\d\d first done in [\d.]+s$/m);
    expect(result.stdout).toMatch(/^\d\d:\d\d:\d\d second done in [\d.]+m?s$/m);
    expect(result.stdout.indexOf(' first done')).toBeLessThan(result.stdout.indexOf(' second done'));
    expect(result.stdout).toMatch(/✓ cli-quick succeeded in [\d.]+s \(run cli-quick-[0-9a-f]{6}\)/);
    expect(result.stdout).toMatch(/^ {2}message +hi world$/m);
    expect(result.stdout).toMatch(/^ {2}token +•••••• +\(secret: --show-secrets shows it\)$/m);
    expect(result.stdout).not.toContain('s3cr3t-value');
    expect(result.stdout).not.toContain('\u001b['); // not a terminal: no redraws, no colours
    expect(result.stderr).toBe('');
  }, 60_000);

  test('run --json --show-secrets --id: one JSON document with the report', async () => {
    const result = await tideline(
      'run',
      fixture('quick.yaml'),
      '-i',
      'token=shown',
      '--id',
      'cli-json-run',
      '--json',
      '--show-secrets',
    );
    expect(result.code).toBe(0);
    const run = jsonOutput<RunJson>(result);
    expect(run).toMatchObject({
      workflowId: 'cli-json-run',
      runbook: 'cli-quick',
      status: 'succeeded',
      failure: null,
    });
    expect(run.outputs).toEqual({ message: 'hello world', token: 'shown' });
    expect(run.steps.map((s) => [s.key, s.name ?? null, s.status])).toEqual([
      ['first', 'A short pause', 'done'],
      ['second', null, 'done'],
    ]);
    expect(run.steps[0]?.durationMs).toBeGreaterThanOrEqual(1000);
  }, 60_000);

  test('run: a failing step gives exit 1, the step and reason, and what was undone', async () => {
    const result = await tideline('run', fixture('fail.yaml'));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/boom failed/);
    expect(result.stdout).toMatch(/✗ cli-fail failed in [\d.]+m?s \(run cli-fail-[0-9a-f]{6}\)/);
    expect(result.stdout).toContain('step boom: RUNBOOK_FAILED_STEP: the disk is on fire');
    expect(result.stdout).toContain('compensated (undone): prepare');
    expect(result.stdout).toMatch(/timeline: node bin\/tideline\.js history cli-fail-[0-9a-f]{6} --address/);

    // The compensation step is listed under the step it undid, keyed after it.
    const id = /run (cli-fail-[0-9a-f]{6})/.exec(result.stdout)?.[1] ?? '';
    const history = await tideline('history', id);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/^prepare +sleep +compensated +\d\d:\d\d:\d\d/m);
    expect(history.stdout).toMatch(/^ {2}prepare\/undo\.unprepare +sleep +done +.* undoes prepare$/m);
    expect(history.stdout).toMatch(/^boom +fail +failed +.* RUNBOOK_FAILED_STEP: the disk is on fire$/m);
    expect(history.stdout).toContain('failed at boom: RUNBOOK_FAILED_STEP: the disk is on fire');
  }, 60_000);

  test("an API error's details show in the failure and in status, with secrets masked", async () => {
    const secret = cli.stack.cloud.project.secret_key;
    cli.stack.cloud.cloud.addFaults([
      {
        action: 'service.list',
        kind: 'error',
        status: 503,
        message: 'the listing is unavailable',
        details: `region us-east-1 is under maintenance until 12:00 UTC (key ${secret})`,
        times: 1,
      },
    ]);
    let result: CliResult;
    try {
      result = await tideline('run', fixture('cloud-error.yaml'), '-i', `project_id=${cli.stack.projectId}`);
    } finally {
      cli.stack.cloud.cloud.clearFaults();
    }
    const failure =
      'step list: CLOUD_API_SERVER_ERROR: service.list failed: HTTP 503 INTERNAL: the listing is ' +
      'unavailable — region us-east-1 is under maintenance until 12:00 UTC (key [REDACTED])';
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(failure);
    const id = /run (cli-cloud-error-[0-9a-f]{6})/.exec(result.stdout)?.[1] ?? '';
    const status = await tideline('status', id, '--once');
    expect(status.stdout).toContain(failure);
    expect(result.stdout + status.stdout).not.toContain(secret);
  }, 60_000);

  test('run: bad inputs are refused before anything starts (exit 2)', async () => {
    const result = await tideline('run', fixture('quick.yaml'), '-i', 'colour=blue');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tideline: 2 problems with the inputs of cli-quick');
    expect(result.stderr).toContain('unknown input `colour`');
    expect(result.stderr).toContain('input `token` is required');
    expect(result.stdout).toBe('');
  }, 30_000);

  test('approve: the pending approval is shown with its command; approving lets the run finish', async () => {
    const started = jsonOutput<{ workflowId: string }>(
      await tideline('run', fixture('gate.yaml'), '--detach', '--json'),
    );
    const id = started.workflowId;
    const waiting = await statusUntil(id, (run) => run.pendingApproval !== null);
    expect(waiting.pendingApproval).toMatchObject({ stepKey: 'gate', message: 'Go ahead with production?' });

    const shown = await tideline('status', id, '--once');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('approval needed at step gate: Go ahead with production?');
    expect(shown.stdout).toContain(
      `approve: node bin/tideline.js approve ${id} --step gate --address ${cli.stack.server.address}`,
    );

    const approved = await tideline('approve', id, '--comment', 'looks good', '--by', 'alice', '--json');
    expect(approved.code).toBe(0);
    expect(jsonOutput(approved)).toEqual({
      workflowId: id,
      step: 'gate',
      approved: true,
      by: 'alice',
      comment: 'looks good',
    });

    const followed = await tideline('status', id);
    expect(followed.code).toBe(0);
    expect(followed.stdout).toMatch(/✓ cli-gate succeeded/);

    const again = await tideline('approve', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`run ${id} has already ended (succeeded); there is nothing to approve`);
  }, 90_000);

  test('an input carrying terminal escapes: status, list and history print it escaped', async () => {
    // A screen clear, a window title, a carriage return and an 8-bit CSI.
    const hostile = 'prod\u001b[2J\u001b]0;owned\u0007\r\u009b31m';
    const escaped = 'prod\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\r\\u{9b}31m';
    // eslint-disable-next-line no-control-regex -- control characters are what this looks for
    const control = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/u;
    const id = jsonOutput<{ workflowId: string }>(
      await tideline('run', fixture('gate.yaml'), '-i', `target=${hostile}`, '--detach', '--json'),
    ).workflowId;
    const waiting = await statusUntil(id, (run) => run.pendingApproval !== null);
    // --json stays exact: JSON's own escapes carry the text.
    expect(waiting.pendingApproval?.message).toBe(`Go ahead with ${hostile}?`);
    // A start sent raw to Temporal names the run and its runbook as it likes (list shows both).
    const rawId = `cli-escape-\u001b[2J-${id.slice(-6)}`;
    const raw = await cli.stack.client.workflow.start('runbookWorkflow', {
      workflowId: rawId,
      taskQueue: `${cli.stack.taskQueue}-nobody`,
      args: [],
      memo: { runbook: hostile },
    });
    try {
      const status = await tideline('status', id, '--once');
      expect(status.code).toBe(0);
      expect(status.stdout).not.toMatch(control);
      expect(status.stdout).toContain(`approval needed at step gate: Go ahead with ${escaped}?`);

      let listed: CliResult | undefined;
      for (let attempt = 0; attempt < 60 && !listed?.stdout.includes('cli-escape-'); attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        listed = await tideline('list', '--running', '--limit', '100');
      }
      expect(listed?.code).toBe(0);
      expect(listed?.stdout).not.toMatch(control);
      expect(listed?.stdout).toContain(`cli-escape-\\u{1b}[2J-${id.slice(-6)}`);
      expect(listed?.stdout).toContain(escaped);
      const listJson = jsonOutput<{ runs: { workflowId: string; runbook: string }[] }>(
        await tideline('list', '--running', '--limit', '100', '--json'),
      );
      expect(listJson.runs).toContainEqual(expect.objectContaining({ workflowId: rawId, runbook: hostile }));

      // The rejection's comment carries it into the step's failure, which history and status show.
      expect((await tideline('reject', id, '--by', 'bob', '--comment', hostile)).code).toBe(0);
      await statusUntil(id, (run) => run.status !== 'running');
      const history = await tideline('history', id);
      expect(history.code).toBe(0);
      expect(history.stdout).not.toMatch(control);
      expect(history.stdout).toContain(`rejected by bob: ${escaped}`);
      const ended = await tideline('status', id);
      expect(ended.stdout).not.toMatch(control);
      expect(ended.stdout).toContain(`step gate: APPROVAL_REJECTED: rejected by bob: ${escaped}`);
    } finally {
      await raw.terminate('test over');
    }
  }, 120_000);

  test('reject: the run fails at the approval and compensates', async () => {
    const id = jsonOutput<{ workflowId: string }>(
      await tideline('run', fixture('gate.yaml'), '-i', 'target=staging', '--detach', '--json'),
    ).workflowId;
    await statusUntil(id, (run) => run.pendingApproval !== null);
    const rejected = await tideline('reject', id, '--by', 'bob', '--comment', 'not today');
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain(
      `rejected step gate of run ${id} (by bob); the run fails and compensates`,
    );
    const followed = await tideline('status', id);
    expect(followed.code).toBe(1);
    expect(followed.stdout).toContain('step gate: APPROVAL_REJECTED: rejected by bob: not today');
    expect(followed.stdout).toContain('compensated (undone): prepare');
  }, 90_000);

  test('Ctrl-C detaches and the run goes on; approve without a pending approval fails; cancel compensates', async () => {
    const run = startCli(['run', fixture('pause.yaml'), ...cli.flags]);
    await run.waitForStdout(/pause running/);
    const id = /started cli-pause as run (cli-pause-[0-9a-f]{6})/.exec(run.stdout())?.[1] ?? '';
    run.signal('SIGINT');
    const detached = await run.done;
    expect(detached.code).toBe(0);
    expect(detached.stdout).toContain(
      `detached; the run goes on. Reattach with: node bin/tideline.js status ${id} --address`,
    );

    const still = await statusUntil(id, () => true);
    expect(still.status).toBe('running');

    const notPending = await tideline('approve', id);
    expect(notPending.code).toBe(1);
    expect(notPending.stderr).toContain(`cannot approve run ${id}: no approval is pending in this run`);

    const cancelled = await tideline('cancel', id);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain(`cancellation of ${id} requested`);
    expect(cancelled.stdout).toMatch(/✗ cli-pause was cancelled/);
    expect(cancelled.stdout).toContain('cancelled on request');
    expect(cancelled.stdout).toContain('compensated (undone): prepare');

    const again = await tideline('cancel', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('has already ended (cancelled)');
  }, 90_000);

  test('status of an unknown run: exit 4', async () => {
    const result = await tideline('status', 'no-such-run');
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('no run with id "no-such-run"');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  test('history of a rolled-back provisioning: the retried create and the undo activities under their steps', async () => {
    cli.stack.cloud.cloud.addFaults([{ action: 'service.create', kind: 'error', status: 503, times: 2 }]);
    let result: CliResult;
    try {
      result = await tideline(
        ...provisionRunArgs({ projectId: cli.stack.projectId, name: 'cli-rollback', vpcId: '99999999' }), // no such VPC: the attach fails and the run rolls back
        '--id',
        'cli-rollback',
      );
    } finally {
      cli.stack.cloud.cloud.clearFaults();
    }
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('compensated (undone): create');
    // What the undone step created and what became of it, in the report and in a later status.
    const created =
      /^ {4}create: created service \S+ · deleted by compensation \(create\/undo\.delete_service\)$/m;
    expect(result.stdout).toMatch(created);
    const status = await tideline('status', 'cli-rollback');
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(created);

    const history = await tideline('history', 'cli-rollback', '--json');
    expect(history.code).toBe(0);
    const timeline = jsonOutput<{
      status: string;
      steps: {
        key: string;
        status: string;
        attempts: number | null;
        activity: { activityId: string; type: string; outcome: string; retriedAfter: string | null } | null;
      }[];
      otherActivities: unknown[];
    }>(history);
    expect(timeline.status).toBe('failed');
    expect(
      timeline.steps.map((s) => [s.key, s.status, s.activity?.activityId ?? null, s.activity?.type ?? null]),
    ).toEqual([
      ['create', 'compensated', 'create', 'service.create'],
      ['create/undo.delete_service', 'done', 'create/undo.delete_service', 'service.delete'],
      ['create/undo.service_gone', 'done', 'create/undo.service_gone', 'wait.until'],
      ['ready', 'done', 'ready', 'wait.until'],
      ['attach', 'failed', 'attach', 'service.attachToVpc'],
      ['attached', 'not-run', null, null],
      ['pooler', 'not-run', null, null],
      ['pooler_ready', 'not-run', null, null],
      ['prod', 'not-run', null, null],
    ]);
    const create = timeline.steps[0];
    expect(create?.attempts).toBe(3);
    expect(create?.activity?.retriedAfter).toMatch(/503/);
    expect(timeline.otherActivities).toEqual([]);

    const text = await tideline('history', 'cli-rollback');
    expect(text.stdout).toMatch(/^create +call +compensated +\d\d:\d\d:\d\d +3 +last retry after: .*503/m);
    expect(text.stdout).toMatch(
      /^ {2}create\/undo\.delete_service +call +done +.* 1 +undoes create · service \S+$/m,
    );
    expect(text.stdout).toMatch(
      /^create +call +compensated .* · created service \S+ · deleted by compensation \(create\/undo\.delete_service\)$/m,
    );
    expect(text.stdout).toMatch(/^attach +call +failed +.* 1 +\S+: /m);
    // Steps the finished run never reached say so, not "pending".
    expect(text.stdout).toMatch(/^attached +wait +not run *$/m);
  }, 120_000);

  test('provision-production-service end to end, then list and history', async () => {
    const vpcId = await createVpc(cli.stack, { name: 'cli', cidr: '10.1.0.0/16' });
    const result = await tideline(
      ...provisionRunArgs({ projectId: cli.stack.projectId, name: 'cli-orders', vpcId }),
      '--id',
      'cli-provision',
    );
    expect(result.code).toBe(0);
    // Final lines only: whether a poll catches `ready` running depends on the machine's load.
    expect(result.stdout).toMatch(/^\d\d:\d\d:\d\d ready done in [\d.]+m?s$/m);
    expect(result.stdout).toMatch(/✓ provision-production-service succeeded/);
    const services = await cli.stack.api.service.list({ project_id: cli.stack.projectId });
    const service = services.find((s) => s.name === 'cli-orders');
    expect(service?.metadata?.environment).toBe('PROD');
    expect(result.stdout).toMatch(new RegExp(`^ {2}service_id +${service?.service_id ?? '-'}$`, 'm'));
    expect(result.stdout).toMatch(/^ {2}password +••••••/m);

    // Each step's activity is the one whose activity id is the step key (patch stepActivityIds),
    // and every activity of the run belongs to a step.
    const history = await tideline('history', 'cli-provision', '--json');
    expect(history.code).toBe(0);
    const timeline = jsonOutput<{
      status: string;
      steps: {
        key: string;
        name?: string;
        waitingFor?: string;
        attempts: number | null;
        activity: { activityId: string; type: string; outcome: string } | null;
      }[];
      otherActivities: unknown[];
    }>(history);
    expect(timeline.status).toBe('succeeded');
    expect(
      timeline.steps.map((s) => [s.key, s.activity?.activityId, s.activity?.type, s.activity?.outcome]),
    ).toEqual([
      ['create', 'create', 'service.create', 'completed'],
      ['ready', 'ready', 'wait.until', 'completed'],
      ['attach', 'attach', 'service.attachToVpc', 'completed'],
      ['attached', 'attached', 'wait.until', 'completed'],
      ['pooler', 'pooler', 'service.enablePooler', 'completed'],
      ['pooler_ready', 'pooler_ready', 'wait.until', 'completed'],
      ['prod', 'prod', 'service.setEnvironment', 'completed'],
    ]);
    expect(timeline.otherActivities).toEqual([]);
    expect(timeline.steps.every((s) => s.attempts === 1)).toBe(true);
    // What the wait polled for stays in its record after it is done.
    expect(timeline.steps.find((s) => s.key === 'ready')?.waitingFor).toBe(
      "service.get: result.status == 'READY'",
    );
    const text = await tideline('history', 'cli-provision');
    expect(text.stdout).toMatch(/^STEP +KIND +STATUS +START +DURATION +ATTEMPTS +NOTE$/m);
    // The note names the service the step created, or acted on (step records keep the ids).
    expect(text.stdout).toMatch(/^create +call +done +\d\d:\d\d:\d\d +[\d.]+m?s +1 +created service \S+$/m);
    expect(text.stdout).toMatch(/^ready +wait +done +\d\d:\d\d:\d\d +[\d.]+m?s +1 +service \S+$/m);
    expect(text.stdout).not.toContain('activities outside the steps');

    // Visibility is eventually consistent: poll until the runs of this file show up.
    let listed: { runs: { workflowId: string; runbook: string; status: string }[] } = { runs: [] };
    for (let attempt = 0; attempt < 40; attempt++) {
      listed = jsonOutput(await tideline('list', '--json', '--limit', '50'));
      if (
        listed.runs.some((r) => r.workflowId === 'cli-provision') &&
        listed.runs.some((r) => r.status === 'failed')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(listed.runs.find((r) => r.workflowId === 'cli-provision')).toMatchObject({
      runbook: 'provision-production-service',
      status: 'succeeded',
    });
    expect(listed.runs.find((r) => r.workflowId === 'cli-json-run')).toMatchObject({
      runbook: 'cli-quick',
      status: 'succeeded',
    });

    const failed = jsonOutput<typeof listed>(await tideline('list', '--failed', '--json'));
    expect(failed.runs.length).toBeGreaterThan(0);
    expect(failed.runs.every((r) => r.status === 'failed')).toBe(true);
    expect(failed.runs.map((r) => r.runbook)).toContain('cli-fail');

    const byRunbook = await tideline('list', '--runbook', 'cli-quick');
    expect(byRunbook.code).toBe(0);
    const rows = byRunbook.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^RUN ID +RUNBOOK +STATUS +STARTED +DURATION$/);
    expect(rows.slice(1).length).toBeGreaterThanOrEqual(2);
    expect(rows.slice(1).every((row) => / cli-quick +succeeded /.test(row))).toBe(true);
  }, 120_000);
});
