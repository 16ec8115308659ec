// The chaos cancel round's pure parts: the audit that compares the local cloud before and after a
// cancelled run, and the seeded plan that makes every case reproducible on its own.
import path from 'node:path';
import { auditCancel } from '../../bench/chaos/cancel-audit';
import { planCases, type PlanInputs } from '../../bench/chaos/cancel-plan';
import { cancelPointsOf, type CloudInventory, type ServiceSummary } from '../../bench/lib/cancel-runs';
import { loadRunbookFile } from '../../dsl/loader';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');

const service = (name: string, more: Partial<ServiceSummary> = {}): ServiceSummary => ({
  name,
  status: 'READY',
  environment: 'PROD',
  vpc: 'bench',
  pooler: true,
  ha: null,
  size: null,
  replicaSets: [],
  ...more,
});
const cloud = (...services: ServiceSummary[]): CloudInventory => ({
  vpcs: [{ vpc: 'bench', cidr: '10.0.0.0/16', peerings: [] }],
  services,
});

describe('auditCancel', () => {
  test('the same cloud as before: nothing left, everything restored', () => {
    const before = cloud(service('parent'));
    expect(auditCancel(before, cloud(service('parent')))).toEqual({ leftovers: [], notRestored: [] });
  });

  test('a service the cancelled run created and did not delete is an orphan', () => {
    const audit = auditCancel(cloud(service('parent')), cloud(service('parent'), service('cancel-001')));
    expect(audit.leftovers).toEqual(['cancel-001 (READY, PROD, vpc bench, pooler on)']);
    expect(audit.notRestored).toEqual([]);
  });

  test('a parent left detached, or gone, is not restored', () => {
    const detached = auditCancel(cloud(service('parent')), cloud(service('parent', { vpc: null })));
    expect(detached.notRestored).toEqual([
      'parent (READY, PROD, vpc bench, pooler on) is now parent (READY, PROD, vpc none, pooler on)',
    ]);
    expect(auditCancel(cloud(service('parent')), cloud()).notRestored).toEqual([
      'parent (READY, PROD, vpc bench, pooler on) is gone',
    ]);
  });

  test('a run that succeeded owns what its runbook documents, and no more', () => {
    const before = cloud(service('parent'));
    const after = cloud(
      service('parent', { environment: 'DEV', vpc: null, status: 'PAUSED' }),
      service('fork-1'),
      service('fork-1'),
    );
    const audit = auditCancel(before, after, { added: ['fork-1'], changed: ['parent'] });
    expect(audit).toEqual({ leftovers: ['fork-1 (READY, PROD, vpc bench, pooler on)'], notRestored: [] });
  });
});

describe('planCases', () => {
  const inputs: PlanInputs = {
    definitions: {
      'provision-production-service': loadRunbookFile(
        path.join(RUNBOOKS, 'provision-production-service.yaml'),
      ),
      'fork-and-promote': loadRunbookFile(path.join(RUNBOOKS, 'fork-and-promote.yaml')),
    },
    runMs: { 'provision-production-service': 5_000, 'fork-and-promote': 9_000 },
  };

  test('a case depends only on the seed and its index (it can be made again alone)', () => {
    expect(planCases(7, 14, inputs)[13]).toEqual(planCases(7, 100, inputs)[13]);
    expect(planCases(7, 100, inputs)).not.toEqual(planCases(8, 100, inputs));
  });

  test('a round of 100 runs holds every call of both runbooks in flight at a cancel', () => {
    const cases = planCases(1, 100, inputs);
    expect(new Set(cases.map((c) => c.moment))).toEqual(
      new Set(['in-flight', 'after-step', 'random-time', 'approval-pending']),
    );
    for (const runbook of ['provision-production-service', 'fork-and-promote'] as const) {
      const inFlight = cases.filter((c) => c.runbook === runbook && c.moment === 'in-flight');
      const held = cancelPointsOf(inputs.definitions[runbook]).filter((p) => p.when === 'during' && p.hold);
      expect(new Set(inFlight.map((c) => c.point!.step))).toEqual(new Set(held.map((p) => p.step)));
      for (const c of inFlight) expect(c.delayMs).toBeLessThan(c.holdMs!);
    }
    const approvals = cases.filter((c) => c.moment === 'approval-pending');
    expect(approvals.every((c) => c.runbook === 'fork-and-promote')).toBe(true);
  });
});
