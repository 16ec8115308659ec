// The one workflow id of a drift repair (reconcile's and a drift watcher's alike) and what a run
// already under that id means: open or closed since the drift was read, joined; closed before,
// the next generation is started; none, the first, and a concurrent start of it is joined.
import type { Client } from '@temporalio/client';
import { repairRunId, startOrJoinRepair } from '../../worker/repair-run-id';

const orders = { id: 's1', name: 'orders' };
const finding = (rule: string, found: Record<string, number>, service = orders) => ({
  rule,
  service,
  expected: 'ha_replicas.replica_count >= 1',
  found,
});
const parts = {
  state: 'fleet',
  runbook: 'enable-ha.yaml',
  service: orders,
  rules: ['has-ha'],
  findings: [finding('has-ha', { 'ha_replicas.replica_count': 0 })],
};

describe('repairRunId', () => {
  test('the same drift, the same id; other services and rules do not count', () => {
    const id = repairRunId(parts);
    expect(id).toMatch(/^repair-fleet-orders-[0-9a-f]{16}$/);
    expect(
      repairRunId({
        ...parts,
        findings: [
          finding('has-pooler', { pooler: 0 }),
          ...parts.findings,
          finding('has-ha', { 'ha_replicas.replica_count': 0 }, { id: 's2', name: 'web' }),
        ],
      }),
    ).toBe(id);
  });

  test('another state, service, runbook, rule set or drift: another id', () => {
    const id = repairRunId(parts);
    const others = [
      { ...parts, state: 'other' },
      { ...parts, runbook: 'other.yaml' },
      { ...parts, service: { id: 's9', name: 'orders' } },
      { ...parts, rules: ['has-ha', 'has-pooler'] },
      { ...parts, findings: [finding('has-ha', { 'ha_replicas.replica_count': 2 })] },
    ];
    for (const other of others) expect(repairRunId(other)).not.toBe(id);
  });
});

describe('startOrJoinRepair', () => {
  const checkedAt = new Date('2030-01-01T12:00:00Z');
  const before = new Date(checkedAt.getTime() - 1_000);
  const since = new Date(checkedAt.getTime() + 1_000);
  type Described = { status: string; closeTime?: Date };
  /** A client that knows the runs of `runs` by id. */
  function client(runs: Record<string, Described>): Client {
    return {
      workflow: {
        getHandle: (id: string) => ({
          describe: () => {
            const run = runs[id];
            if (run !== undefined)
              return Promise.resolve({ status: { name: run.status }, closeTime: run.closeTime });
            const error = new Error('not found');
            error.name = 'WorkflowNotFoundError';
            return Promise.reject(error);
          },
        }),
      },
    } as unknown as Client;
  }
  function recorder() {
    const ids: string[] = [];
    return { ids, start: (id: string) => Promise.resolve(void ids.push(id)) };
  }

  test('no run yet: the first generation is started', async () => {
    const { ids, start } = recorder();
    expect(await startOrJoinRepair(client({}), 'r', checkedAt, start)).toEqual({
      workflowId: 'r-1',
      joined: false,
    });
    expect(ids).toEqual(['r-1']);
  });

  test('a concurrent start of the same generation won: joined', async () => {
    const taken = new Error('taken');
    taken.name = 'WorkflowExecutionAlreadyStartedError';
    expect(await startOrJoinRepair(client({}), 'r', checkedAt, () => Promise.reject(taken))).toEqual({
      workflowId: 'r-1',
      joined: true,
    });
  });

  test('open, or closed since the drift was read: joined, nothing started', async () => {
    const { ids, start } = recorder();
    expect(await startOrJoinRepair(client({ 'r-1': { status: 'RUNNING' } }), 'r', checkedAt, start)).toEqual({
      workflowId: 'r-1',
      joined: true,
    });
    const runs = {
      'r-1': { status: 'COMPLETED', closeTime: before },
      'r-2': { status: 'FAILED', closeTime: since },
    };
    expect(await startOrJoinRepair(client(runs), 'r', checkedAt, start)).toEqual({
      workflowId: 'r-2',
      joined: true,
    });
    expect(ids).toEqual([]);
  });

  test('closed before the drift was read: the drift outlived them, the next generation starts', async () => {
    const { ids, start } = recorder();
    const runs = {
      'r-1': { status: 'COMPLETED', closeTime: before },
      'r-2': { status: 'COMPLETED', closeTime: before },
    };
    expect(await startOrJoinRepair(client(runs), 'r', checkedAt, start)).toEqual({
      workflowId: 'r-3',
      joined: false,
    });
    expect(ids).toEqual(['r-3']);
  });
});
