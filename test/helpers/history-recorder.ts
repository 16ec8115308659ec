// Committed workflow histories of the shipped runbooks, for the replay test
// (test/integration/workflows-replay-histories.test.ts): where they live, the TEST-ONLY key they are
// encrypted with, how to load them, and how to record the missing ones.
//
// Recorded histories are append-only evidence of what released code did. Recording is its own
// command, never part of the gate, and writes only histories that do not exist yet:
//
//   npm run record-histories                          # every recording whose file is missing
//   npm run record-histories -- every-kind.2027-03    # just these (refused if one exists)
//
// Each file written gets a line in SHA256SUMS (history-manifest.ts), which a unit test checks. A
// change that breaks the old histories needs a new patch (contract/patches.ts) and the new paths
// recorded under a new release's names (history-release-recordings.ts), never a re-recording.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { HistoryAndWorkflowId, WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { parseKeyFile, type EncryptionKeyRing } from '../../worker/encryption-keys';
import { lockWorkflowId } from '../../contract/lock-messages';
import { approvalUpdate, progressQuery, type RunReport } from '../../contract/run-messages';
import { appendToManifest, HISTORY_FIXTURES_DIR, HISTORY_SUFFIX, historyFiles } from './history-manifest';
import { releaseRecordings } from './history-release-recordings';
import { createVpc } from './runbook-fixtures';
import { startRunbookStack, type RunbookStack } from './runbook-stack';

export { HISTORY_FIXTURES_DIR };
/** Small runbooks that exercise one step kind each (test/fixtures/kinds). */
const KINDS_DIR = path.resolve(__dirname, '..', 'fixtures', 'kinds');
/**
 * The key the committed histories are encrypted with. TEST ONLY and public: it protects nothing
 * and must never be configured for a real worker, client or namespace.
 */
export const FIXTURE_KEY_FILE = path.join(HISTORY_FIXTURES_DIR, 'test-only-encryption-keys.json');

export function fixtureKeyRing(): EncryptionKeyRing {
  return parseKeyFile(readFileSync(FIXTURE_KEY_FILE, 'utf8'), FIXTURE_KEY_FILE);
}

export function historyFile(name: string, dir = HISTORY_FIXTURES_DIR): string {
  return path.join(dir, `${name}${HISTORY_SUFFIX}`);
}

const HistoryMessage = temporal.api.history.v1.History;
/** 64-bit ids and bytes as strings, enums by name: plain JSON that reads back losslessly. */
const OBJECT_OPTIONS = { longs: String, enums: String, bytes: String } as const;

/**
 * The history as plain JSON: the protobufjs object form of `temporal.api.history.v1.History`.
 * (Not the SDK's `historyToJSON`/`historyFromJSON`: in this install @temporalio/common and
 * @temporalio/proto each carry their own protobufjs copy, and those helpers then throw
 * "type must be a Type".)
 */
export function historyToObject(history: temporal.api.history.v1.IHistory): Record<string, unknown> {
  return HistoryMessage.toObject(HistoryMessage.fromObject(history), OBJECT_OPTIONS);
}

export function historyFromObject(json: object): temporal.api.history.v1.History {
  return HistoryMessage.fromObject(json);
}

export interface RecordedHistory extends HistoryAndWorkflowId {
  /** The recording's name (file name without `.history.json`). */
  name: string;
  /** The file's JSON, for inspecting events (event types by name, ids as strings). */
  json: { events?: unknown[] };
}

export function loadRecordedHistories(): RecordedHistory[] {
  return historyFiles().map((file) => {
    const name = file.slice(0, -HISTORY_SUFFIX.length);
    const json = JSON.parse(
      readFileSync(path.join(HISTORY_FIXTURES_DIR, file), 'utf8'),
    ) as RecordedHistory['json'];
    return { name, workflowId: `replay-${name}`, json, history: historyFromObject(json) };
  });
}

export interface RecordingContext {
  stack: RunbookStack;
  vpcId: string;
  /** Service ids of earlier recordings' outputs, by recording name. */
  services: Map<string, string>;
  /** The workflow id the replay test gives this recording (`replay-<name>`), for runs whose
   * child workflow ids derive from their own. */
  workflowId: string;
}

interface JsonEvent {
  eventType?: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
}

/** What a recorded history lacks of what its recording claims to cover (empty: nothing). */
export function coverageGaps(recording: Recording, json: RecordedHistory['json']): string[] {
  const events = (json.events ?? []) as JsonEvent[];
  const gaps: string[] = [];
  if (events[0]?.eventType !== 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED') gaps.push('no start event');
  const scheduled = new Map<string, number>();
  for (const event of events) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type !== undefined) scheduled.set(type, (scheduled.get(type) ?? 0) + 1);
  }
  for (const [activity, least] of Object.entries(recording.covers.activities)) {
    const count = scheduled.get(activity) ?? 0;
    if (count < least) gaps.push(`${activity} scheduled ${count}×, expected at least ${least}`);
  }
  const types = new Set(events.map((e) => e.eventType));
  for (const type of recording.covers.events) if (!types.has(type)) gaps.push(`no ${type}`);
  return gaps.map((gap) => `${recording.name}: ${gap}`);
}

export interface Recording {
  name: string;
  /**
   * What the history must hold to cover the path it is named after, including how the workflow
   * closed (checked when recording, and again by the replay test).
   */
  covers: {
    /** Activity type → least number of times it is scheduled. */
    activities: Record<string, number>;
    /** Event types (proto JSON names, e.g. `EVENT_TYPE_WORKFLOW_EXECUTION_FAILED`). */
    events: string[];
  };
  run(context: RecordingContext): Promise<WorkflowHandle>;
}

/** Creates a service directly in the local cloud and waits until it is READY; gives its id. */
async function readyService(stack: RunbookStack, name: string): Promise<string> {
  const created = await stack.api.service.create({ project_id: stack.projectId, name });
  await until(`${name} READY`, async () => {
    const service = await stack.api.service.get({
      project_id: stack.projectId,
      service_id: created.service_id!,
    });
    return service.status === 'READY' ? true : undefined;
  });
  return created.service_id!;
}

/** Resolves once the run's progress shows step `id` in `status`. */
async function stepReaches(handle: WorkflowHandle, id: string, status: string): Promise<void> {
  await until(`step ${id} ${status}`, async () => {
    const progress = await handle.query(progressQuery);
    return progress.steps.find((s) => s.id === id)?.status === status ? true : undefined;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The recordings, in order: later ones use what earlier ones made. */
const FIRST_RELEASE_RECORDINGS: readonly Recording[] = [
  {
    name: 'provision-succeeded',
    covers: {
      activities: {
        'service.create': 1,
        'wait.until': 3,
        'service.attachToVpc': 1,
        'service.setEnvironment': 1,
      },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    },
    run: ({ stack, vpcId }) =>
      stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'orders',
        vpc_id: vpcId,
      }),
  },
  {
    name: 'provision-rolled-back',
    covers: {
      activities: { 'service.create': 1, 'service.attachToVpc': 1, 'service.delete': 1, 'wait.until': 2 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_FAILED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
    },
    // The attach fails (no such VPC): the service is deleted and the run waits until it is gone.
    run: ({ stack }) =>
      stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'doomed',
        vpc_id: '999999',
      }),
  },
  {
    name: 'provision-cancelled',
    covers: {
      activities: { 'service.create': 1, 'service.delete': 1 },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    run: async ({ stack, vpcId }) => {
      const handle = await stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'cancelled',
        vpc_id: vpcId,
      });
      await until('the create step', async () => {
        const progress = await handle.query(progressQuery);
        return progress.steps.find((s) => s.id === 'create')?.status === 'done' ? true : undefined;
      });
      await handle.cancel();
      return handle;
    },
  },
  {
    name: 'fork-and-promote-approved',
    covers: {
      activities: {
        'service.fork': 1,
        'service.attachToVpc': 1,
        'service.detachFromVpc': 1,
        'service.stop': 1,
      },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    },
    run: async ({ stack, services }) => {
      const handle = await stack.start('fork-and-promote.yaml', {
        project_id: stack.projectId,
        service_id: services.get('provision-succeeded'),
        require_approval: true,
      });
      await until('the approval', async () => {
        const progress = await handle.query(progressQuery);
        return progress.pendingApproval ? true : undefined;
      });
      await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'recorder' }] });
      return handle;
    },
  },
  {
    name: 'service-lock',
    // The lock workflow fork-and-promote queued on for its parent service: granted, released, done.
    covers: {
      activities: {},
      events: [
        'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED',
        'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    run: async ({ stack, services }) =>
      stack.client.workflow.getHandle(
        lockWorkflowId(`service/${stack.projectId}/${services.get('provision-succeeded')}`),
      ),
  },
  {
    name: 'stop-dev-services',
    covers: {
      activities: { 'service.list': 1, 'service.stop': 2, 'wait.until': 2 },
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    },
    // Two fresh DEV services stop in a foreach; the PROD fork and the stopped parent are left alone.
    run: async ({ stack }) => {
      for (const name of ['dev-a', 'dev-b']) await readyService(stack, name);
      return stack.start('stop-dev-services.yaml', { project_id: stack.projectId, name_prefix: 'dev-' });
    },
  },
  {
    name: 'every-kind',
    // if (skipped), sleep, parallel, foreach, continueOnError, a child runbook, assert, calls.
    covers: {
      activities: { 'service.get': 1 },
      events: [
        'EVENT_TYPE_TIMER_FIRED',
        'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    // Recorded under the id the replay uses: the child's workflow id is derived from it.
    run: async ({ stack, workflowId }) =>
      stack.start(
        path.join(KINDS_DIR, 'every-kind.yaml'),
        { project_id: stack.projectId, service_id: await readyService(stack, 'kinds') },
        workflowId,
      ),
  },
  {
    name: 'approval-timed-out',
    // An approval with a timeout and nobody answering: the default (reject) fails the run.
    covers: { activities: {}, events: ['EVENT_TYPE_TIMER_FIRED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'] },
    run: ({ stack }) => stack.start(path.join(KINDS_DIR, 'approval.yaml'), { timeout: '1s' }),
  },
  {
    name: 'approval-then-fail',
    // An approval without a timeout, approved; then a `fail` step; the earlier step is compensated.
    covers: {
      activities: {},
      events: ['EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
    },
    run: async ({ stack }) => {
      const handle = await stack.start(path.join(KINDS_DIR, 'approval-open.yaml'), {});
      await stepReaches(handle, 'ask', 'running');
      await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'recorder' }] });
      return handle;
    },
  },
  {
    name: 'step-timeout',
    // A parallel step with a timeout: its branch's 1 h sleep is cancelled at 500 ms.
    covers: { activities: {}, events: ['EVENT_TYPE_TIMER_CANCELED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'] },
    run: ({ stack }) => stack.start(path.join(KINDS_DIR, 'slow-parallel.yaml'), {}),
  },
  {
    name: 'provision-cancelled-in-wait',
    // The service never leaves QUEUED; the run is cancelled while the READY wait polls.
    covers: {
      activities: { 'service.create': 1, 'wait.until': 2, 'service.delete': 1 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    run: async ({ stack, vpcId }) => {
      stack.cloud.cloud.addFaults({
        action: 'service.create',
        kind: 'outcome',
        outcome: 'stuckQueued',
        times: 1,
      });
      const handle = await stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'stuck',
        vpc_id: vpcId,
      });
      await stepReaches(handle, 'ready', 'running');
      await handle.cancel();
      return handle;
    },
  },
  {
    name: 'provision-cancelled-in-create',
    // The create's request is held open by the local cloud; the run is cancelled meanwhile.
    covers: {
      activities: { 'service.create': 1 },
      events: ['EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED', 'EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED'],
    },
    run: async ({ stack, vpcId }) => {
      stack.cloud.cloud.addFaults({ action: 'service.create', kind: 'latency', ms: 3_000, times: 1 });
      const handle = await stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'held',
        vpc_id: vpcId,
      });
      await stepReaches(handle, 'create', 'running');
      await handle.cancel();
      return handle;
    },
  },
  {
    name: 'service-lock-holder-terminated',
    // A service lock watches its holder (patch lockWatchesHolder); the holder is terminated without
    // releasing, the watch sees it closed, the waiting run gets the lock, releases it, done.
    covers: {
      activities: { 'lock.watchHolder': 2 },
      events: [
        'EVENT_TYPE_MARKER_RECORDED',
        'EVENT_TYPE_ACTIVITY_TASK_COMPLETED',
        'EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    run: async ({ stack }) => {
      const hold = path.resolve(__dirname, '..', 'fixtures', 'locks', 'hold-service.yaml');
      const inputs = { project_id: stack.projectId, service_id: await readyService(stack, 'lock-holder') };
      const key = `service/${stack.projectId}/${inputs.service_id}`;
      const holder = await stack.start(hold, { ...inputs, hold: '1h' });
      await until('the holder to hold the lock', async () =>
        (await holder.query(progressQuery)).locks?.includes(key) ? true : undefined,
      );
      const waiter = await stack.start(hold, { ...inputs, hold: '10ms' });
      await until('the waiter to queue', async () =>
        (await waiter.query(progressQuery)).waitingForLock === key ? true : undefined,
      );
      await holder.terminate('recording: a holder that never releases');
      return stack.client.workflow.getHandle(lockWorkflowId(key));
    },
  },
  {
    name: 'foreach-batches',
    // stop-dev-services over 101 services: a foreach over more than a batch (patch foreachBatches)
    // runs items 0–99 and 100 in two batch child workflows, one after the other.
    covers: {
      activities: { 'service.list': 1 },
      events: [
        'EVENT_TYPE_MARKER_RECORDED',
        'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    // Recorded under the id the replay uses: the batches' workflow ids are derived from it.
    run: async ({ stack }) => {
      await seedServices(stack, 'batch-', 101);
      return stack.start(
        'stop-dev-services.yaml',
        { project_id: stack.projectId, name_prefix: 'batch-', concurrency: 20 },
        'replay-foreach-batches',
      );
    },
  },
  {
    name: 'foreach-batch-child',
    // The last batch of foreach-batches (needs that recording): its iteration locks its service
    // (patch foreachLocks), stops it, waits until PAUSED, and releases the lock.
    covers: {
      activities: { 'lock.request': 1, 'service.stop': 1, 'wait.until': 1 },
      events: [
        'EVENT_TYPE_MARKER_RECORDED',
        'EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    run: async ({ stack }) => stack.client.workflow.getHandle('replay-foreach-batches/stop_each[100-100]'),
  },
];

/** Every recording: the first release's, then each later release's (history-release-recordings.ts). */
export const RECORDINGS: readonly Recording[] = [
  ...FIRST_RELEASE_RECORDINGS,
  ...releaseRecordings(FIRST_RELEASE_RECORDINGS),
];

/** Creates `count` services named `<prefix><n>` at once and waits until all are READY. */
async function seedServices(stack: RunbookStack, prefix: string, count: number): Promise<void> {
  const names = Array.from({ length: count }, (_, n) => `${prefix}${String(n).padStart(3, '0')}`);
  for (let at = 0; at < names.length; at += 20) {
    await Promise.all(
      names.slice(at, at + 20).map((name) => stack.api.service.create({ project_id: stack.projectId, name })),
    );
  }
  await until(
    `${count} ${prefix}* services READY`,
    async () => {
      const services = await stack.api.service.list({ project_id: stack.projectId });
      const ready = services.filter((s) => s.name?.startsWith(prefix) && s.status === 'READY');
      return ready.length === count ? true : undefined;
    },
    60_000,
  );
}

/**
 * The recordings to make: the named ones (refused when one of them has a file already), or, with
 * no names, every recording whose file is missing.
 */
export function recordingsToMake(names: readonly string[], dir = HISTORY_FIXTURES_DIR): readonly Recording[] {
  if (names.length === 0)
    return RECORDINGS.filter((recording) => !existsSync(historyFile(recording.name, dir)));
  const named = recordingsNamed(names);
  const existing = names.filter((name) => existsSync(historyFile(name, dir)));
  if (existing.length > 0) {
    throw new Error(
      `refusing to record again ${existing.join(', ')}: recorded histories are never overwritten ` +
        "(a changed path is a new patch, recorded under a new release's name)",
    );
  }
  return named;
}

/** The recordings named (unknown names refused), in recording order. */
export function recordingsNamed(names: readonly string[]): readonly Recording[] {
  const unknown = names.filter((name) => !RECORDINGS.some((r) => r.name === name));
  if (unknown.length > 0) throw new Error(`no recording named ${unknown.join(', ')}`);
  return RECORDINGS.filter((recording) => names.includes(recording.name));
}

/**
 * Runs the recordings, in recording order, with the current workflow code, and writes the history
 * of each one in `wanted` (only new files: an existing one is never overwritten), adding it to
 * SHA256SUMS. `setUp` recordings run too, unwritten, for what a wanted one uses of theirs (a
 * service an earlier recording made).
 */
export async function recordMissingHistories(
  wanted: readonly Recording[],
  options: { dir?: string; setUp?: readonly Recording[]; log?: (line: string) => void } = {},
): Promise<string[]> {
  const dir = options.dir ?? HISTORY_FIXTURES_DIR;
  const log = options.log ?? (() => {});
  const setUp = options.setUp ?? [];
  if (wanted.length === 0) return [];
  const written: string[] = [];
  const stack = await startRunbookStack({ timeScale: 0.05, seed: 4 }, { keyRing: fixtureKeyRing() });
  try {
    const vpcId = await createVpc(stack);
    const services = new Map<string, string>();
    for (const recording of RECORDINGS.filter((r) => wanted.includes(r) || setUp.includes(r))) {
      const write = wanted.includes(recording);
      log(`${write ? 'recording' : 'running (set-up only)'} ${recording.name}`);
      const handle = await recording.run({ stack, vpcId, services, workflowId: `replay-${recording.name}` });
      // Until the workflow has closed, however it closes (coverageGaps checks how).
      const result = (await handle.result().catch(() => undefined)) as RunReport | undefined;
      const serviceId = result?.outputs?.service_id;
      if (typeof serviceId === 'string') services.set(recording.name, serviceId);
      if (!write) continue;
      const json = historyToObject(await handle.fetchHistory());
      const gaps = coverageGaps(recording, json);
      if (gaps.length > 0) throw new Error(`recording does not cover its path: ${gaps.join('; ')}`);
      const file = historyFile(recording.name, dir);
      // 'wx': fails if the file appeared meanwhile, so an existing history is never replaced.
      writeFileSync(file, `${JSON.stringify(json, null, 1)}\n`, { flag: 'wx' });
      appendToManifest(file);
      written.push(file);
    }
  } finally {
    await stack.close();
  }
  return written;
}
