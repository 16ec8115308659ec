// Cancel at any moment, nothing left behind: provision-production-service and fork-and-promote are
// cancelled during and right after their steps (a call in flight is held open by the local cloud),
// on a real dev server; afterwards the local cloud holds exactly what it held before. npm test
// takes the representative slice of the points (cancelMatrix); npm run test:cancel-matrix all.
import {
  cancelPointLabel,
  cancelMatrix,
  runAndCancel,
  settledInventory,
  stableInventory,
  type CancelPoint,
} from '../helpers/cancel-matrix';
import { createVpc, decide, seedService, waitForApproval } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';
import { progressQuery } from '../../contract/run-messages';

const label = cancelPointLabel;
/** One slice for the suite: a way of cancelling the runbooks before already met is not repeated. */
const { cancelPoints } = cancelMatrix();

let stack: RunbookStack;
let vpcId: string;

beforeAll(async () => {
  stack = await startRunbookStack({ timeScale: 0.05 });
  vpcId = await createVpc(stack);
}, 120_000);
afterAll(async () => stack?.close());

/** Cancels at the point; the run must end cancelled and the cloud return to its state before. */
async function expectNothingLeftBehind(
  point: CancelPoint,
  start: () => ReturnType<RunbookStack['start']>,
  lastStep: string,
) {
  const before = await stableInventory(stack);
  const { cancelledAtPoint, final, replay } = await runAndCancel(stack, start, point);
  // Whatever the moment of the cancel, the history replays (a restarted worker can resume it).
  expect({ point: label(point), replay }).toEqual({ point: label(point), replay: 'ok' });
  const step = final.steps.find((s) => s.key === point.step);
  if (!cancelledAtPoint || final.status === 'succeeded') {
    // The point was not reached while the run could still be cancelled: the step was skipped, or
    // the cancel came after the last step (the work is done: the run finishes and owns what it
    // made). Anything else would mean the matrix missed its point.
    const skippedOrDone = step?.status === 'skipped' || (point.step === lastStep && point.when === 'after');
    expect({ point: label(point), status: final.status, skippedOrDone }).toEqual({
      point: label(point),
      status: 'succeeded',
      skippedOrDone: true,
    });
    return;
  }
  expect({ point: label(point), status: final.status }).toEqual({ point: label(point), status: 'cancelled' });
  expect(await settledInventory(stack, before)).toEqual(before);
}

describe('provision-production-service', () => {
  const points = cancelPoints('provision-production-service.yaml');
  const last = points.at(-1)!.step;
  test.each(points.map((point, index) => [label(point), point, index] as const))(
    'cancelled %s leaves nothing behind',
    async (_label, point, index) => {
      await expectNothingLeftBehind(
        point,
        () =>
          stack.start('provision-production-service.yaml', {
            project_id: stack.projectId,
            name: `cancel-${index}`,
            vpc_id: vpcId,
          }),
        last,
      );
    },
    120_000,
  );
});

describe('fork-and-promote', () => {
  const points = cancelPoints('fork-and-promote.yaml');
  const last = points.at(-1)!.step;
  test.each(points.map((point, index) => [label(point), point, index] as const))(
    'cancelled %s puts the parent back and removes the fork',
    async (_label, point, index) => {
      const parent = await seedService(stack, {
        name: `parent-${index}`,
        environment: 'PROD',
        vpcId,
        pooler: index % 2 === 0,
      });
      const approve = point.step === 'approval';
      await expectNothingLeftBehind(
        point,
        async () => {
          const handle = await stack.start('fork-and-promote.yaml', {
            project_id: stack.projectId,
            service_id: parent.service_id,
            require_approval: approve,
          });
          // Points after the approval need someone to approve it.
          if (approve && point.when === 'after') {
            void waitForApproval(handle, 60_000).then(() => decide(handle, { approved: true, by: 'test' }));
          }
          return handle;
        },
        last,
      );
    },
    120_000,
  );

  test('a cancel while the approval is pending compensates the fork', async () => {
    const parent = await seedService(stack, { name: 'parent-approval', environment: 'PROD', vpcId });
    const before = await stableInventory(stack);
    const handle = await stack.start('fork-and-promote.yaml', {
      project_id: stack.projectId,
      service_id: parent.service_id,
      require_approval: true,
    });
    await waitForApproval(handle, 60_000);
    await handle.cancel();
    await handle.result().catch(() => undefined);
    expect((await handle.query(progressQuery)).status).toBe('cancelled');
    expect(await settledInventory(stack, before)).toEqual(before);
  }, 120_000);
});
