// Release 2026-12's recordings for the replay gate (history-release-recordings.ts explains the
// scheme). Patch `runVisibility`: every run upserts its search attributes — at start, on each
// state change (waiting-for-approval, held, compensating, and how it ends) and when its steps name
// new services, coalesced per workflow task, also from a foreach batch's records. Other 2026-12
// changes add their recordings here too. Record them (never an older release's):
//
//   npm run record-histories -- provision-succeeded.2026-12,…
import { approvalUpdate, progressQuery } from '../../contract/run-messages';
import type { Recording } from './history-recorder';
import type { Release } from './history-release-recordings';
import { pollUntil } from './runbook-fixtures';
import type { RunbookStack } from './runbook-stack';

const UPSERTED = 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES';

/** Creates `count` services named `<prefix><n>` and waits until all are READY. */
async function seedServices(stack: RunbookStack, prefix: string, count: number): Promise<void> {
  const names = Array.from({ length: count }, (_, n) => `${prefix}${String(n).padStart(3, '0')}`);
  for (let at = 0; at < names.length; at += 20) {
    await Promise.all(
      names.slice(at, at + 20).map((name) => stack.api.service.create({ project_id: stack.projectId, name })),
    );
  }
  await pollUntil(
    `${count} ${prefix}* services READY`,
    () => stack.api.service.list({ project_id: stack.projectId }),
    (services) => services.filter((s) => s.name?.startsWith(prefix) && s.status === 'READY').length === count,
    120_000,
  );
}

const NEW_PATHS: Recording[] = [
  {
    name: 'foreach-batches.2026-12',
    // stop-dev-services over 101 services: the run merges each batch's step records and upserts
    // the services they name (up to the cap) in one go per batch.
    covers: {
      activities: { 'service.list': 1 },
      events: [
        'EVENT_TYPE_MARKER_RECORDED',
        'EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED',
        UPSERTED,
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    // Recorded under the id the replay uses: the batches' workflow ids are derived from it.
    run: async ({ stack, workflowId }) => {
      await seedServices(stack, 'vbatch-', 101);
      return stack.start(
        'stop-dev-services.yaml',
        { project_id: stack.projectId, name_prefix: 'vbatch-', concurrency: 20 },
        workflowId,
      );
    },
  },
  // Patch `localCalls`: calls that read, change or delete run as local activities (a marker each,
  // no activity task); creates and waits stay activities.
  {
    name: 'provision-local-calls.2026-12',
    // attach, pooler and prod as markers; the create and the three waits as activities.
    covers: {
      activities: { 'service.create': 1, 'wait.until': 3 },
      events: ['EVENT_TYPE_MARKER_RECORDED', 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED'],
    },
    run: ({ stack, vpcId }) =>
      stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'local-orders',
        vpc_id: vpcId,
      }),
  },
  {
    name: 'provision-local-rolled-back.2026-12',
    // The local attach fails (no such VPC); the undo's delete runs locally too, then its wait.
    covers: {
      activities: { 'service.create': 1, 'wait.until': 2 },
      events: ['EVENT_TYPE_MARKER_RECORDED', 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED'],
    },
    run: ({ stack }) =>
      stack.start('provision-production-service.yaml', {
        project_id: stack.projectId,
        name: 'local-doomed',
        vpc_id: '999999',
      }),
  },
  {
    name: 'fork-local-calls.2026-12',
    // fork-and-promote after an approval: the parent's stop and start, the attach and detach as
    // markers, the fork as an activity. Forks the service of provision-local-calls.2026-12.
    covers: {
      activities: { 'service.fork': 1 },
      events: [
        'EVENT_TYPE_MARKER_RECORDED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
        'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      ],
    },
    run: async ({ stack, services }) => {
      const handle = await stack.start('fork-and-promote.yaml', {
        project_id: stack.projectId,
        service_id: services.get('provision-local-calls.2026-12'),
        require_approval: true,
      });
      await pollUntil(
        'the approval',
        () => handle.query(progressQuery),
        (progress) => progress.pendingApproval !== undefined && progress.pendingApproval !== null,
        60_000,
      );
      await handle.executeUpdate(approvalUpdate, { args: [{ approved: true, by: 'recorder' }] });
      return handle;
    },
  },
];

export const RELEASE_2026_12: Release = {
  name: '2026-12',
  recordedAgain: {
    // running → succeeded, the created service named.
    'provision-succeeded': undefined,
    // compensating → failed.
    'provision-rolled-back': undefined,
    // cancelled while a wait polls.
    'provision-cancelled-in-wait': undefined,
    // waiting-for-approval → running → succeeded, the fork and its parent named.
    'fork-and-promote-approved': undefined,
    // an inline foreach: services named by concurrent iterations.
    'stop-dev-services': undefined,
    // every step kind, a child runbook that upserts its own attributes.
    'every-kind': undefined,
    // held → running after the operator's retry.
    'held-then-retried.2026-11': undefined,
  },
  // Every run of this release records the patch's marker and its first upsert.
  addedEvents: () => ['EVENT_TYPE_MARKER_RECORDED', UPSERTED],
  newPaths: NEW_PATHS,
};
