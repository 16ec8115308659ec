// The real `tideline` binary on a dev stack: a call run as a local activity (patch localCalls)
// that backs off longer than the local retry threshold (a 429 with Retry-After 12 s: a timer)
// shows `attempt 2 (last: …)` while it waits, read from the marker its failed attempt left; and
// `tideline history` puts the local activity under its step with both attempts and that failure.
// Also: a finished run's report (`status --json`) carries when it asked for and got its service lock.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonOutput, startCli } from '../helpers/cli-process';
import { useCliStack } from '../helpers/cli-stack';

const LOOK = `apiVersion: tideline/v1
name: cli-look
description: One read call. For the CLI test of a local call's progress.
inputs:
  project_id: { type: string }
  service_id: { type: string }
steps:
  - id: look
    name: Look at the service
    call: service.get
    with:
      project_id: '\${{ inputs.project_id }}'
      service_id: '\${{ inputs.service_id }}'
`;

/** A change of a service named by the inputs: the run takes that service's lock first. */
const TAG = LOOK.replace('name: cli-look', 'name: cli-tag')
  .replace('call: service.get', 'call: service.setEnvironment')
  .replace(/(service_id: .*\n)$/, '$1      environment: DEV\n');

describe('a local call backing off, through the CLI', () => {
  const cli = useCliStack();
  let dir: string;
  const { tideline } = cli;

  /** `run FILE` on one service of the stack's project, as run ID. */
  const runOnService = (file: string, serviceId: string, id: string): string[] => [
    'run',
    file,
    '-i',
    `project_id=${cli.stack.projectId}`,
    '-i',
    `service_id=${serviceId}`,
    '--id',
    id,
  ];

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-look-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('run shows the attempt and the failure before it; history keeps both', async () => {
    const file = path.join(dir, 'look.yaml');
    writeFileSync(file, LOOK);
    const created = await cli.stack.api.service.create({
      project_id: cli.stack.projectId,
      name: 'looked-at',
    });
    // Every read is refused until the CLI has shown the retry (waiting on the output, not on a
    // window of time): a loaded machine may see attempt 3 rather than 2.
    cli.stack.cloud.cloud.addFaults([{ kind: 'rateLimit', action: 'service.get', retryAfterSeconds: 12 }]);
    const id = 'cli-look';
    const run = startCli([...runOnService(file, created.service_id!, id), ...cli.flags], {
      timeoutMs: 150_000,
    });
    await run.waitForStdout(
      /^\d\d:\d\d:\d\d look running \(Look at the service\) · attempt \d+ \(last: .*429/m,
      120_000,
    );
    cli.stack.cloud.cloud.clearFaults();
    const result = await run.done;
    expect(result.code).toBe(0);

    const history = jsonOutput<{
      steps: {
        key: string;
        attempts: number | null;
        activity: { activityId: string; retriedAfter: string | null; local: boolean } | null;
      }[];
      otherActivities: unknown[];
    }>(await tideline('history', id, '--json'));
    const look = history.steps.find((step) => step.key === 'look');
    expect(look?.attempts).toBeGreaterThanOrEqual(2);
    expect(look?.activity).toMatchObject({ activityId: 'look', local: true });
    expect(look?.activity?.retriedAfter).toMatch(/429/);
    expect(history.otherActivities).toEqual([]);
  }, 240_000);

  test('a finished run reports when it asked for and got its service lock (workflow time)', async () => {
    const file = path.join(dir, 'tag.yaml');
    writeFileSync(file, TAG);
    const created = await cli.stack.api.service.create({ project_id: cli.stack.projectId, name: 'tagged' });
    const id = 'cli-tag';
    const run = await tideline(...runOnService(file, created.service_id!, id));
    expect(run.code).toBe(0);
    const status = jsonOutput<{
      lockWaits: { key: string; requestedAt: string; acquiredAt: string | null }[];
    }>(await tideline('status', id, '--once', '--json'));
    expect(status.lockWaits).toEqual([
      {
        key: `service/${cli.stack.projectId}/${created.service_id!}`,
        requestedAt: expect.any(String),
        acquiredAt: expect.any(String),
      },
    ]);
    const [wait] = status.lockWaits;
    expect(Date.parse(wait!.acquiredAt!)).toBeGreaterThanOrEqual(Date.parse(wait!.requestedAt));
  }, 120_000);
});
