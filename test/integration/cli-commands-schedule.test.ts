// `tideline schedule …` end to end through the real binary, on a `tideline dev` stack: create a
// schedule for stop-dev-services, trigger it, watch the run stop the DEV service (the PROD one
// stays up), pause / unpause / delete it, the JSON shapes of list and describe, secret inputs
// masked (and encrypted in Temporal), and the usage errors (exit 2) and unknown names (exit 4).
import { Client, Connection } from '@temporalio/client';
import { createCloudClient, type CloudClient } from '../../cloud/client';
import { createDataConverter } from '../../worker/codec';
import type { RunbookWorkflowInput, RunReport } from '../../contract/run-messages';
import { runTideline, type CliResult } from '../helpers/cli-process';
import { buildDist, testKeyRing } from '../helpers/worker-process';
import { startDevCli, type DevCli } from './cli-dev-helpers';

jest.setTimeout(180_000);

describe('tideline schedule', () => {
  let dev: DevCli;
  let api: CloudClient;
  let projectId: string;
  let address: string;
  let client: Client;

  const tideline = (...args: string[]): Promise<CliResult> =>
    runTideline([...args, '--address', address], { timeoutMs: 60_000 });
  const json = <T>(result: CliResult): T => {
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(result.stdout) as T;
  };

  async function readyService(name: string): Promise<string> {
    const created = await api.service.create({
      project_id: projectId,
      name,
      cpu_millis: '1000',
      memory_gbs: '4',
    });
    const id = created.service_id!;
    for (let i = 0; i < 300; i++) {
      if ((await api.service.get({ project_id: projectId, service_id: id })).status === 'READY') return id;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`service ${name} did not become READY`);
  }

  beforeAll(async () => {
    await buildDist();
    dev = await startDevCli(['--time-scale', '0.05']);
    address = dev.info.temporal.address;
    const project = dev.info.cloud.projects[0]!;
    projectId = project.id;
    api = createCloudClient({
      baseUrl: dev.info.cloud.url,
      accessKey: project.access_key,
      secretKey: project.secret_key,
      allowInsecureLoopback: true,
    });
    const connection = await Connection.connect({ address });
    client = new Client({ connection, dataConverter: createDataConverter(testKeyRing) });
  }, 300_000);

  afterAll(async () => {
    await client?.connection.close();
    await api?.close();
    if (dev) {
      dev.cli.signal('SIGTERM');
      expect((await dev.cli.done).code).toBe(0);
    }
  });

  test('create, list, describe, trigger (the DEV service ends PAUSED), pause, unpause, delete', async () => {
    const devService = await readyService('web-dev');
    const prodService = await readyService('db-prod');
    await api.service.setEnvironment({ project_id: projectId, service_id: prodService, environment: 'PROD' });

    // Every 30 days: no timed run fires during the test, the run comes from `trigger`.
    const created = json<Record<string, unknown>>(
      await tideline(
        'schedule',
        'create',
        'stop-dev',
        '--runbook',
        'runbooks/stop-dev-services.yaml',
        '--every',
        '30d',
        '-i',
        `project_id=${projectId}`,
        '--json',
      ),
    );
    expect(created).toEqual({
      name: 'stop-dev',
      created: true,
      replaced: false,
      runbook: 'stop-dev-services',
      taskQueue: 'tideline',
      paused: false,
      nextRuns: expect.arrayContaining([expect.stringMatching(/^\d{4}-\d\d-\d\dT/)]),
    });

    // The list comes from Temporal's visibility store, which may lag a moment.
    let listed: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && listed.length === 0; i++) {
      listed = json<Record<string, unknown>[]>(await tideline('schedule', 'list', '--json')).filter(
        (s) => s.name === 'stop-dev',
      );
      if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(listed).toEqual([
      {
        name: 'stop-dev',
        runbook: 'stop-dev-services',
        when: 'every 30d',
        paused: false,
        note: expect.any(String),
        nextRun: expect.any(String),
        lastRun: null,
      },
    ]);

    const described = json<Record<string, unknown>>(
      await tideline('schedule', 'describe', 'stop-dev', '--json'),
    );
    expect(described).toMatchObject({
      name: 'stop-dev',
      runbook: 'stop-dev-services',
      file: 'runbooks/stop-dev-services.yaml',
      when: 'every 30d',
      every: '30d',
      cron: null,
      taskQueue: 'tideline',
      overlap: 'skip',
      catchupWindow: '5m',
      pauseOnFailure: false,
      onFailure: null,
      paused: false,
      inputs: { project_id: projectId, name_prefix: '', concurrency: 3 },
      recentRuns: [],
      runningRuns: [],
      actionsTaken: 0,
    });
    expect((described.nextRuns as string[]).length).toBeGreaterThan(0);

    const triggered = json<{ workflowId: string; runId: string }>(
      await tideline('schedule', 'trigger', 'stop-dev', '--json'),
    );
    expect(triggered.workflowId).toMatch(/^stop-dev-/);
    const report = (await client.workflow.getHandle(triggered.workflowId).result()) as RunReport;
    expect(report.status).toBe('succeeded');
    expect(report.outputs.stopped).toEqual([devService]);
    // Its static summary and details (the Web UI's User Metadata), as a run started by `tideline run`.
    const scheduledRun = await client.workflow.getHandle(triggered.workflowId).describe();
    expect(await scheduledRun.staticSummary()).toMatch(
      new RegExp(`^stop-dev-services: project_id=${projectId}( |$)`),
    );
    expect(await scheduledRun.staticDetails()).toContain(`- project_id: \`${projectId}\``);
    expect((await api.service.get({ project_id: projectId, service_id: devService })).status).toBe('PAUSED');
    expect((await api.service.get({ project_id: projectId, service_id: prodService })).status).toBe('READY');

    // The scheduled run is an ordinary run: `tideline list --runbook` finds it (visibility may lag).
    let runs: { workflowId: string; runbook: string; status: string }[] = [];
    for (
      let i = 0;
      i < 50 && !runs.some((r) => r.workflowId === triggered.workflowId && r.status === 'succeeded');
      i++
    ) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      runs = json<{ runs: typeof runs }>(
        await tideline('list', '--runbook', 'stop-dev-services', '--json'),
      ).runs;
    }
    expect(runs).toContainEqual(
      expect.objectContaining({
        workflowId: triggered.workflowId,
        runbook: 'stop-dev-services',
        status: 'succeeded',
      }),
    );

    const afterRun = json<{ recentRuns: Record<string, unknown>[]; actionsTaken: number }>(
      await tideline('schedule', 'describe', 'stop-dev', '--json'),
    );
    expect(afterRun.actionsTaken).toBe(1);
    expect(afterRun.recentRuns).toEqual([
      {
        workflowId: triggered.workflowId,
        runId: triggered.runId,
        scheduledAt: expect.any(String),
        startedAt: expect.any(String),
        status: 'succeeded',
      },
    ]);
    const text = await tideline('schedule', 'describe', 'stop-dev');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${triggered.workflowId}  succeeded`);

    expect(
      json(await tideline('schedule', 'pause', 'stop-dev', '--note', 'release freeze', '--json')),
    ).toEqual({
      name: 'stop-dev',
      paused: true,
      note: 'release freeze',
    });
    expect(json(await tideline('schedule', 'describe', 'stop-dev', '--json'))).toMatchObject({
      paused: true,
      note: 'release freeze',
    });
    const pausedList = await tideline('schedule', 'list');
    expect(pausedList.stdout).toMatch(
      /stop-dev\s+stop-dev-services\s+every 30d\s+-\s+paused \(release freeze\)/,
    );

    expect(json(await tideline('schedule', 'unpause', 'stop-dev', '--json'))).toMatchObject({
      name: 'stop-dev',
      paused: false,
    });
    expect(json(await tideline('schedule', 'describe', 'stop-dev', '--json'))).toMatchObject({
      paused: false,
      note: 'release freeze', // unpause without --note keeps why it was paused
    });

    expect(json(await tideline('schedule', 'delete', 'stop-dev', '--json'))).toEqual({
      name: 'stop-dev',
      deleted: true,
    });
    const gone = await tideline('schedule', 'describe', 'stop-dev');
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('no schedule named "stop-dev"');
    const goneJson = await tideline('schedule', 'trigger', 'stop-dev', '--json');
    expect(goneJson.code).toBe(4);
    expect(JSON.parse(goneJson.stdout)).toMatchObject({ error: { code: 'SCHEDULE_NOT_FOUND' } });
  });

  test('secret inputs are masked by describe and stored encrypted; cron, timezone and policies are kept', async () => {
    const password = 'Sched-Secret-4711-xyz';
    const created = await tideline(
      'schedule',
      'create',
      'rotate-weekly',
      '-r',
      'runbooks/rotate-password.yaml',
      '--cron',
      '30 3 * * 0',
      '--timezone',
      'Europe/Berlin',
      '--overlap',
      'buffer',
      '--catchup',
      '15m',
      '--pause-on-failure',
      '--on-failure',
      'hold',
      '--paused',
      '-i',
      `project_id=${projectId}`,
      '-i',
      'service_id=abc123',
      '-i',
      `new_password=${password}`,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      'created schedule rotate-weekly: rotate-password cron "30 3 * * 0" (Europe/Berlin)',
    );
    expect(created.stdout + created.stderr).not.toContain(password);

    const described = await tideline('schedule', 'describe', 'rotate-weekly', '--json');
    expect(described.stdout).not.toContain(password);
    expect(JSON.parse(described.stdout)).toMatchObject({
      cron: '30 3 * * 0',
      timezone: 'Europe/Berlin',
      overlap: 'buffer',
      catchupWindow: '15m',
      pauseOnFailure: true,
      onFailure: 'hold',
      paused: true,
      inputs: {
        project_id: projectId,
        service_id: 'abc123',
        new_password: '••••••',
        previous_password: null,
      },
    });
    // Temporal stores the schedule's action encrypted: the raw answer has no trace of the secret.
    const raw = await client.workflowService.describeSchedule({
      namespace: 'default',
      scheduleId: 'rotate-weekly',
    });
    const rawText = JSON.stringify(raw, (_key, value: unknown) =>
      value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
    );
    expect(rawText).not.toContain(password);
    expect(rawText).toContain('rotate-weekly');
    // The schedule stores the normalised definition with its format version, so the runs it
    // starts after an upgrade of the workers are read as the format they were created in.
    const stored = await client.schedule.getHandle('rotate-weekly').describe();
    const [storedInput] = stored.action.args as RunbookWorkflowInput[];
    // (rotate-password uses nothing newer than format 1, so that is the format it is written in.)
    expect(storedInput?.definition).toMatchObject({ name: 'rotate-password', formatVersion: 1 });

    // --replace creates it anew with the new timing.
    const replaced = await tideline(
      'schedule',
      'create',
      'rotate-weekly',
      '-r',
      'runbooks/rotate-password.yaml',
      '--every',
      '7d',
      '--paused',
      '--replace',
      '--json',
      '-i',
      `project_id=${projectId}`,
      '-i',
      'service_id=abc123',
      '-i',
      `new_password=${password}`,
    );
    expect(JSON.parse(replaced.stdout)).toMatchObject({
      name: 'rotate-weekly',
      created: false,
      replaced: true,
      paused: true,
    });
    expect(json(await tideline('schedule', 'describe', 'rotate-weekly', '--json'))).toMatchObject({
      every: '7d',
      cron: null,
      overlap: 'skip',
    });
    expect((await tideline('schedule', 'delete', 'rotate-weekly')).code).toBe(0);
  });

  test('bad usage is exit 2 with a one-line reason; nothing is created', async () => {
    const base = ['schedule', 'create', 'bad', '-r', 'runbooks/stop-dev-services.yaml'];
    const cases: [string[], RegExp][] = [
      [[...base, '-i', `project_id=${projectId}`], /give exactly one of --cron EXPR or --every DURATION/],
      [
        [...base, '--cron', '0 20 * *', '-i', `project_id=${projectId}`],
        /--cron: "0 20 \* \*" is not a cron expression/,
      ],
      [
        [...base, '--cron', '99 20 * * *', '-i', `project_id=${projectId}`],
        /Temporal refused the schedule: .*[Mm]inute/,
      ],
      [[...base, '--every', 'soon', '-i', `project_id=${projectId}`], /--every: `soon` is not a duration/],
      [
        [...base, '--cron', '0 20 * * *', '--timezone', 'Mars/Olympus', '-i', `project_id=${projectId}`],
        /unknown time zone "Mars\/Olympus"/,
      ],
      [
        [...base, '--every', '1h', '--catchup', '1s', '-i', `project_id=${projectId}`],
        /--catchup must be at least 10s/,
      ],
      [
        [...base, '--every', '1h', '--overlap', 'queue', '-i', `project_id=${projectId}`],
        /--overlap must be one of skip, buffer, cancel/,
      ],
      [[...base, '--every', '1h'], /input `project_id` is required/],
      [['schedule', 'create', 'bad', '-r', 'runbooks/nope.yaml', '--every', '1h'], /runbook file not found/],
      [
        ['schedule', 'create', 'bad name', '-r', 'runbooks/stop-dev-services.yaml', '--every', '1h'],
        /invalid schedule name/,
      ],
      [['schedule', 'frobnicate'], /unknown schedule subcommand "frobnicate"/],
    ];
    for (const [args, message] of cases) {
      const result = await tideline(...args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stderr: expect.stringMatching(message),
      });
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    const list = json<{ name: string }[]>(await tideline('schedule', 'list', '--json'));
    expect(list.map((s) => s.name)).not.toContain('bad');
  });
});
