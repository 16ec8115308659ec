// Cancel at any moment, for the shipped runbooks workflows-cancel-anywhere.test.ts does not cover:
// resize-with-rollback, enable-ha, rotate-password, add-read-replica, vpc-with-peering,
// stop-dev-services and start-dev-services. Each is cancelled during its top-level steps (the
// step's first call held in flight by the local cloud's latency fault) and right after them, on a
// real dev server — in npm test the representative slice (cancelMatrix), in npm run
// test:cancel-matrix every point; afterwards the local cloud holds what it held before (what the runbook's
// compensation documents: the previous size, HA layout, password — not part of the inventory —,
// no replica set, no VPC or peering, the services running or paused as they were).
import {
  cancelPointLabel,
  cancelMatrix,
  runAndCancel,
  settledInventory,
  stableInventory,
} from '../helpers/cancel-matrix';
import { seedService } from '../helpers/runbook-fixtures';
import { startRunbookStack, type RunbookStack } from '../helpers/runbook-stack';

const label = cancelPointLabel;
/** One slice for the suite: a way of cancelling the runbooks before already met is not repeated. */
const { cancelPoints } = cancelMatrix();

let stack: RunbookStack;

beforeAll(async () => {
  // Replica sets need a snapshot (one as soon as a service is READY); VPCs take peerings at once.
  stack = await startRunbookStack({ timeScale: 0.05, durations: { firstSnapshot: 0, vpcProvisioning: 0 } });
}, 120_000);
afterAll(async () => stack?.close());

/** The run's inputs for one cancel point; it seeds what the run works on (fresh per point). */
type Prepare = (index: number) => Promise<Record<string, unknown>>;

async function service(name: string, options: { paused?: boolean } = {}): Promise<string> {
  return (await seedService(stack, { name, ...options })).service_id!;
}

const RUNBOOKS: Array<[string, Prepare]> = [
  [
    'resize-with-rollback.yaml',
    async (i) => ({
      project_id: stack.projectId,
      service_id: await service(`resize-${i}`),
      cpu_millis: '2000',
    }),
  ],
  [
    'enable-ha.yaml',
    async (i) => ({
      project_id: stack.projectId,
      service_id: await service(`ha-${i}`),
      replica_count: 2,
      sync_replica_count: 1,
    }),
  ],
  [
    'rotate-password.yaml',
    async (i) => ({
      project_id: stack.projectId,
      service_id: await service(`rotate-${i}`),
      new_password: 'Rotated-Secret-4711',
      previous_password: 'Previous-Secret-0815',
    }),
  ],
  [
    'add-read-replica.yaml',
    async (i) => ({
      project_id: stack.projectId,
      service_id: await service(`replica-${i}`),
      name: `reports-${i}`,
      pooler: true,
      environment: 'PROD',
    }),
  ],
  [
    'vpc-with-peering.yaml',
    async (i) => ({
      project_id: stack.projectId,
      name: `peered-${i}`,
      cidr: `10.${100 + i}.0.0/16`,
      region_code: 'us-east-1',
      peer_account_id: '123456789012',
      peer_region_code: 'eu-west-1',
      peer_vpc_id: `vpc-0abc${i}`,
    }),
  ],
  [
    'stop-dev-services.yaml',
    async (i) => {
      await Promise.all([service(`stop${i}-a`), service(`stop${i}-b`)]);
      return { project_id: stack.projectId, name_prefix: `stop${i}-`, concurrency: 2 };
    },
  ],
  [
    'start-dev-services.yaml',
    async (i) => {
      await Promise.all([service(`start${i}-a`, { paused: true }), service(`start${i}-b`, { paused: true })]);
      return { project_id: stack.projectId, name_prefix: `start${i}-`, concurrency: 2 };
    },
  ],
];

describe.each(RUNBOOKS)('%s', (runbook, prepare) => {
  const points = cancelPoints(runbook);
  // After these points only steps that take no time remain (asserts: no call, wait or approval),
  // so the run ends in the workflow task that reached the point and a cancel finds it done.
  const nothingLeftToWait = (index: number) => !points.slice(index + 1).some((p) => p.when === 'during');
  test.each(points.map((point, index) => [label(point), point, index] as const))(
    'cancelled %s leaves nothing behind',
    async (_label, point, index) => {
      const inputs = await prepare(index);
      const before = await stableInventory(stack);
      const { cancelledAtPoint, final, replay } = await runAndCancel(
        stack,
        () => stack.start(runbook, inputs),
        point,
      );
      // Whatever the moment of the cancel, the history replays (a restarted worker can resume it).
      expect({ point: label(point), replay }).toEqual({ point: label(point), replay: 'ok' });
      const step = final.steps.find((s) => s.key === point.step);
      if (!cancelledAtPoint || final.status === 'succeeded') {
        // The run got past the point before the cancel could land: only a skipped step or a
        // point with nothing left to wait for may do that (the work is done; the run owns it).
        const skippedOrDone =
          step?.status === 'skipped' || (point.when === 'after' && nothingLeftToWait(index));
        expect({ point: label(point), status: final.status, skippedOrDone }).toEqual({
          point: label(point),
          status: 'succeeded',
          skippedOrDone: true,
        });
        return;
      }
      expect({ point: label(point), status: final.status }).toEqual({
        point: label(point),
        status: 'cancelled',
      });
      expect(await settledInventory(stack, before)).toEqual(before);
    },
    120_000,
  );
});
