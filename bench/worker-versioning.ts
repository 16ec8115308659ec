// What Worker Deployment Versioning does on the pinned Temporal, with a toy workflow whose v2 drops
// a timer: patched (bench/fixtures/versioning/v2.js) or not (v2-unpatched.js). For each case a run
// starts on deployment version v1, gets its first signal, v2 starts, becomes the current version
// (`temporal worker deployment set-current-version`), and the run gets its second signal:
//   auto-patched    AUTO_UPGRADE, v1 stopped first       does the run move to v2 and finish?
//   auto-unpatched  AUTO_UPGRADE, v2 without the patch   does v2 fail to replay it?
//   pinned-patched  PINNED, v1 stopped first             does it wait; does `temporal workflow
//                                                        update-options` move it to v2?
//   auto-rolling    AUTO_UPGRADE, v1 still polling       which worker gets the task?
// It prints what happened (the builds that completed the run's workflow tasks, failed tasks).
//   npm run bench:worker-versioning                       # on a dev server of its own
//   npm run bench:worker-versioning -- --address H:P      # on a running Temporal (e.g. tideline cluster)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { VersioningBehavior } from '@temporalio/common';
import { connectClient, connectWorker, localConnectionSettings } from '../worker/connection';
import { startDevServer, type DevServer } from './lib/dev-server';
import { REPO_ROOT, temporalExecutable } from './lib/repo';

const TOYS = path.join(REPO_ROOT, 'bench', 'fixtures', 'versioning');
type Toy = 'v1' | 'v2' | 'v2-unpatched';
const CASES: { name: string; behavior: VersioningBehavior; next: Toy; stopFirst: boolean }[] = [
  { name: 'auto-patched', behavior: 'AUTO_UPGRADE', next: 'v2', stopFirst: true },
  { name: 'auto-unpatched', behavior: 'AUTO_UPGRADE', next: 'v2-unpatched', stopFirst: true },
  { name: 'pinned-patched', behavior: 'PINNED', next: 'v2', stopFirst: true },
  { name: 'auto-rolling', behavior: 'AUTO_UPGRADE', next: 'v2', stopFirst: false },
];

const log = (...parts: string[]) => console.log(new Date().toISOString().slice(11, 19), ...parts);

/** Calls `attempt` until it gives a value (errors count as "not yet") or the deadline passes. */
async function eventually<T>(what: string, attempt: () => Promise<T> | T, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      const value = await attempt();
      if (value) return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await pause(300);
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const temporal = temporalExecutable();
  const given = process.argv.indexOf('--address');
  let server: DevServer | undefined;
  let address = given === -1 ? undefined : process.argv[given + 1];
  if (address === undefined) {
    server = await startDevServer();
    address = server.address;
  }
  const settings = localConnectionSettings(address);
  const suffix = Date.now().toString(36);
  try {
    const connection = await eventually('the Temporal server', () => connectClient(settings));
    const client = new Client({ connection });
    const native = await connectWorker(settings);
    const bundles = {} as Record<Toy, string>;
    for (const toy of ['v1', 'v2', 'v2-unpatched'] as const) {
      const bundle = await bundleWorkflowCode({
        workflowsPath: path.join(TOYS, `${toy}.js`),
        logger: new DefaultLogger('ERROR'),
      });
      bundles[toy] = bundle.code;
    }
    const cli = (...args: string[]) =>
      execFileSync(temporal, [...args, '--address', settings.connection.address ?? address], {
        encoding: 'utf8',
      }).trim();
    const startWorker = async (
      taskQueue: string,
      deploymentName: string,
      buildId: string,
      toy: Toy,
      behavior: VersioningBehavior,
    ) => {
      const worker = await Worker.create({
        connection: native,
        taskQueue,
        workflowBundle: { code: bundles[toy] },
        workerDeploymentOptions: {
          version: { deploymentName, buildId },
          useWorkerVersioning: true,
          defaultVersioningBehavior: behavior,
        },
      });
      const running = worker.run();
      return async () => {
        worker.shutdown();
        await running;
      };
    };
    const setCurrent = (deploymentName: string, buildId: string) =>
      eventually(`${deploymentName}.${buildId} current`, () =>
        cli(
          'worker',
          'deployment',
          'set-current-version',
          '--deployment-name',
          deploymentName,
          '--build-id',
          buildId,
          '--yes',
        ),
      );
    const servedBy = async (handle: WorkflowHandle) => {
      const builds: string[] = [];
      const failed: string[] = [];
      for (const event of (await handle.fetchHistory()).events ?? []) {
        const version = event.workflowTaskCompletedEventAttributes?.deploymentVersion;
        const build = version ? `${version.deploymentName}.${version.buildId}` : undefined;
        if (build && builds.at(-1) !== build) builds.push(build);
        const failure = event.workflowTaskFailedEventAttributes?.failure?.message;
        if (failure) failed.push(failure.slice(0, 120));
      }
      return JSON.stringify({ builds, failed });
    };
    const outcome = (handle: WorkflowHandle, ms: number) =>
      Promise.race([
        handle.result().then(
          (result: unknown) => `completed: ${String(result)}`,
          (error: Error) => `failed: ${error.message}`,
        ),
        pause(ms).then(() => `still running after ${ms / 1000} s`),
      ]);

    for (const { name, behavior, next, stopFirst } of CASES) {
      const taskQueue = `tq-${name}-${suffix}`;
      const deployment = `dep-${name}-${suffix}`;
      log(
        `--- ${name}: ${behavior}, v1 then ${next}${stopFirst ? ', v1 stopped before the second signal' : ', v1 still polling'}`,
      );
      const stopV1 = await startWorker(taskQueue, deployment, 'v1', 'v1', behavior);
      await setCurrent(deployment, 'v1');
      const handle = await client.workflow.start('toy', { taskQueue, workflowId: `toy-${name}-${suffix}` });
      await handle.signal('go');
      await eventually('the first signal handled', async () =>
        ((await handle.fetchHistory()).events ?? []).some((e) => e.timerFiredEventAttributes),
      );
      const stopV2 = await startWorker(taskQueue, deployment, 'v2', next, behavior);
      await setCurrent(deployment, 'v2');
      if (stopFirst) await stopV1();
      await handle.signal('go');
      let result = await outcome(handle, 8_000);
      log(result, await servedBy(handle));
      if (behavior === 'PINNED' && result.startsWith('still running')) {
        log(
          'temporal workflow update-options --versioning-override-behavior pinned … --versioning-override-build-id v2',
        );
        cli(
          'workflow',
          'update-options',
          '-w',
          handle.workflowId,
          '--versioning-override-behavior',
          'pinned',
          '--versioning-override-deployment-name',
          deployment,
          '--versioning-override-build-id',
          'v2',
        );
        result = await outcome(handle, 8_000);
        log(result, await servedBy(handle));
      }
      if (result.startsWith('still running')) await handle.terminate('experiment over');
      if (!stopFirst) await stopV1();
      await stopV2();
    }
    await native.close();
    await connection.close();
  } finally {
    await server?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
