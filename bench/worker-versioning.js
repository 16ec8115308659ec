#!/usr/bin/env node
// What Worker Deployment Versioning does on the pinned Temporal (the dev server of the Temporal CLI
// that scripts/setup-temporal.js provides), with a toy workflow whose v2 drops a timer: patched
// (test/fixtures/upgrade/versioning/v2.js) or not (v2-unpatched.js). For each case a run starts on
// deployment version v1, gets its first signal, v2 starts, becomes the current version
// (`temporal worker deployment set-current-version`), and the run gets its second signal:
//   auto-patched    AUTO_UPGRADE, v1 stopped first       does the run move to v2 and finish?
//   auto-unpatched  AUTO_UPGRADE, v2 without the patch   does v2 fail to replay it?
//   pinned-patched  PINNED, v1 stopped first             does it wait; does `temporal workflow
//                                                        update-options` move it to v2?
//   auto-rolling    AUTO_UPGRADE, v1 still polling       which worker gets the task?
// It prints what happened (the builds that completed the run's workflow tasks, failed tasks).
//   node bench/worker-versioning.js                    # on a dev server of its own
//   node bench/worker-versioning.js --address H:P      # on a running Temporal (e.g. tideline cluster)
'use strict';

const { execFileSync, spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { setTimeout } = require('node:timers');
const {
  Worker,
  NativeConnection,
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
} = require('@temporalio/worker');
const { Client, Connection } = require('@temporalio/client');
const { readTemporalPath } = require('../scripts/setup-temporal');

const TOYS = path.resolve(__dirname, '..', 'test', 'fixtures', 'upgrade', 'versioning');
const CASES = [
  { name: 'auto-patched', behavior: 'AUTO_UPGRADE', next: 'v2', stopFirst: true },
  { name: 'auto-unpatched', behavior: 'AUTO_UPGRADE', next: 'v2-unpatched', stopFirst: true },
  { name: 'pinned-patched', behavior: 'PINNED', next: 'v2', stopFirst: true },
  { name: 'auto-rolling', behavior: 'AUTO_UPGRADE', next: 'v2', stopFirst: false },
];

const log = (...parts) => console.log(new Date().toISOString().slice(11, 19), ...parts);
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Calls `attempt` until it gives a value (errors count as "not yet") or the deadline passes. */
async function eventually(what, attempt, ms = 30_000) {
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

async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const temporal = readTemporalPath();
  const given = process.argv.indexOf('--address');
  let address = given === -1 ? undefined : process.argv[given + 1];
  let server;
  if (address === undefined) {
    const port = await freePort();
    address = `127.0.0.1:${port}`;
    const uiPort = await freePort();
    const args = [
      'server',
      'start-dev',
      '--headless',
      '--port',
      `${port}`,
      '--ui-port',
      `${uiPort}`,
      '--log-level',
      'error',
    ];
    server = spawn(temporal, args, { stdio: 'ignore' });
  }
  const suffix = Date.now().toString(36);
  try {
    const connection = await eventually('the dev server', () => Connection.connect({ address }));
    const client = new Client({ connection });
    const native = await NativeConnection.connect({ address });
    const bundles = {};
    for (const toy of ['v1', 'v2', 'v2-unpatched']) {
      const bundle = await bundleWorkflowCode({
        workflowsPath: path.join(TOYS, `${toy}.js`),
        logger: new DefaultLogger('ERROR'),
      });
      bundles[toy] = bundle.code;
    }
    const cli = (...args) =>
      execFileSync(temporal, [...args, '--address', address], { encoding: 'utf8' }).trim();
    const startWorker = async (taskQueue, deploymentName, buildId, toy, behavior) => {
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
    const setCurrent = (deploymentName, buildId) =>
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
    const servedBy = async (handle) => {
      const builds = [];
      const failed = [];
      for (const event of (await handle.fetchHistory()).events ?? []) {
        const version = event.workflowTaskCompletedEventAttributes?.deploymentVersion;
        const build = version ? `${version.deploymentName}.${version.buildId}` : undefined;
        if (build && builds.at(-1) !== build) builds.push(build);
        const failure = event.workflowTaskFailedEventAttributes?.failure?.message;
        if (failure) failed.push(failure.slice(0, 120));
      }
      return JSON.stringify({ builds, failed });
    };
    const outcome = (handle, ms) =>
      Promise.race([
        handle.result().then(
          (result) => `completed: ${result}`,
          (error) => `failed: ${error.message}`,
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
        (await handle.fetchHistory()).events.some((e) => e.timerFiredEventAttributes),
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
    server?.kill('SIGTERM');
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
