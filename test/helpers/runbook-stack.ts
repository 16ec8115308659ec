// A whole tideline stack for tests (the local stack, stack/stack.ts): a Temporal dev
// server, the local cloud checking its answers against the vendor's document, an in-process worker
// running the real interpreter and activities, and a client with the same encryption keys.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { ApprovalSettings, NotificationSettings } from '../../activities/deps';
import type { RateLimit } from '../../cloud/rate-limiter';
import type { CloudClient } from '../../cloud/client';
import { loadRunbookFile } from '../../dsl/loader';
import { bundleWorkflows } from '../../worker/bundle';
import { createDataConverter } from '../../worker/codec';
import { EncryptionKeyRing } from '../../worker/encryption-keys';
import type { TidelineWorker } from '../../worker/worker';
import type { WorkflowSource } from '../../worker/workflow-source';
import { reportInFailure, type RunReport, type RunbookWorkflowInput } from '../../contract/run-messages';
import { RUNBOOK_WORKFLOW_TYPE } from '../../contract/workflow-types';
import { unwindOnFailure } from '../../stack/teardown';
import type { TestCloud, TestCloudOptions } from './local-cloud';
import { startTestLocalStack } from './test-local-stack';
import { runWorkflowBundle, treeWorkflows } from './tree-workflows';
import type { TemporalServer, TemporalServerOptions } from './temporal-server';
import type { WorkerConfig } from '../../worker/config';
import type { Clock } from '../../activities/deps';

export const RUNBOOKS_DIR = path.resolve(__dirname, '..', '..', 'runbooks');

export interface RunbookStack {
  server: TemporalServer;
  cloud: TestCloud;
  /** A typed client of the local cloud's project, for asserting state. */
  api: CloudClient;
  projectId: string;
  client: Client;
  worker: TidelineWorker;
  taskQueue: string;
  /**
   * Stops the worker (as a deployment does) and starts another on the same task queue running
   * `workflows`, e.g. the next release's bundle.
   */
  replaceWorker(workflows: WorkflowSource): Promise<void>;
  /**
   * Replays a closed run's history on the workflow code in the tree, as a worker that lost the run
   * from its cache would: the nondeterminism error's message, or undefined when it replays.
   */
  replayError(workflowId: string): Promise<string | undefined>;
  /** Starts a runbook file from `runbooks/` (or a path) with inputs. */
  start(file: string, inputs: Record<string, unknown>, workflowId?: string): Promise<WorkflowHandle>;
  close(): Promise<void>;
}

export interface RunbookStackOptions {
  /** Payload keys of the worker and the client. Default: a fresh random key. */
  keyRing?: EncryptionKeyRing;
  /** Options of the Temporal dev server, e.g. `dbFile` to stop and restart it during a run. */
  temporal?: TemporalServerOptions;
  /** The worker configuration's `approvals:` (approvers' public keys and groups). */
  approvals?: ApprovalSettings;
  /** The worker configuration's `notifications:` (targets, Web UI link, delivery retries). */
  notifications?: NotificationSettings;
  /** The project's API budget (`cloud.rateLimit`). */
  rateLimit?: RateLimit;
  /** The worker configuration's `catalog:` (worker/catalog.ts); default: development. */
  catalog?: WorkerConfig['catalog'];
  /** The time the worker evaluates policies and change windows at. */
  policyClock?: Clock;
  /** The worker configuration's `policies:` and `calendars:`, compiled. */
  governance?: WorkerConfig['governance'];
  /** The worker configuration's `drift:` (the state files it watches), loaded. */
  drift?: WorkerConfig['drift'];
}

export async function startRunbookStack(
  cloudOptions: TestCloudOptions = {},
  options: RunbookStackOptions = {},
): Promise<RunbookStack> {
  const taskQueue = `rb-${randomBytes(4).toString('hex')}`;
  const keyRing = options.keyRing ?? new EncryptionKeyRing([{ id: 'test', key: randomBytes(32) }]);
  const { stack, server, cloud } = await startTestLocalStack({
    cloud: cloudOptions,
    temporal: options.temporal,
    keyRing,
  });
  const { teardown, client } = stack;
  // The workflow code in the tree, bundled once for replayError (removed when the stack closes).
  let replayDir: string | undefined;
  let replayBundle: Promise<string> | undefined;
  teardown.add(() => {
    if (replayDir !== undefined) rmSync(replayDir, { recursive: true, force: true });
  });
  const base = stack.workerConfig(taskQueue);
  const { rateLimit } = options;
  const projects = new Map([...base.cloud.projects].map(([id, project]) => [id, { ...project, rateLimit }]));
  const config = {
    ...base,
    ...(rateLimit !== undefined && { cloud: { ...base.cloud, projects } }),
    ...(options.approvals !== undefined && { approvals: options.approvals }),
    ...(options.notifications !== undefined && { notifications: options.notifications }),
    ...(options.catalog !== undefined && { catalog: options.catalog }),
    ...(options.governance !== undefined && { governance: options.governance }),
    ...(options.drift !== undefined && { drift: options.drift }),
  };
  const startWorker = (workflows: WorkflowSource) =>
    stack.startInProcessWorker(config, {
      workflows,
      ...(options.policyClock !== undefined && { policyClock: options.policyClock }),
    });
  let running = await unwindOnFailure(teardown, () => startWorker(treeWorkflows()));
  return {
    server,
    cloud,
    api: stack.api,
    projectId: cloud.project.id,
    client,
    get worker() {
      return running.worker;
    },
    taskQueue,
    async replaceWorker(workflows) {
      await running.stop();
      running = await startWorker(workflows);
    },
    async replayError(workflowId) {
      replayDir ??= mkdtempSync(path.join(tmpdir(), 'tideline-replay-'));
      const outFile = path.join(replayDir, 'workflow-bundle.js');
      const built = runWorkflowBundle();
      replayBundle ??=
        built !== undefined
          ? Promise.resolve(built)
          : bundleWorkflows({ outFile, workflowsPath: require.resolve('../../workflows') }).then(
              (bundle) => bundle.outFile,
            );
      const codePath = await replayBundle;
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      return Worker.runReplayHistory(
        {
          workflowBundle: { codePath },
          dataConverter: createDataConverter(keyRing),
          replayName: 'replay-check',
        },
        history,
        workflowId,
      ).then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
    },
    async start(file, inputs, workflowId) {
      const definition = loadRunbookFile(path.isAbsolute(file) ? file : path.join(RUNBOOKS_DIR, file));
      const input: RunbookWorkflowInput = { definition, inputs };
      return client.workflow.start(RUNBOOK_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: workflowId ?? `${definition.name}-${randomBytes(4).toString('hex')}`,
        args: [input],
      });
    },
    close: () => stack.close(),
  };
}

/** The report of a run that failed (carried in the failure's details). */
export async function failedReport(handle: WorkflowHandle): Promise<RunReport> {
  try {
    await handle.result();
  } catch (error) {
    const report = reportInFailure(error);
    if (report) return report;
    throw error;
  }
  throw new Error('expected the run to fail');
}
