// Which findings a drift watcher repairs itself: only rules with `repair.auto`, one run per
// service and repair runbook, once per appearance — a finding keeps its repair run while it stays
// open and loses it when it clears, so it is repaired again only when it comes back. Runs are read
// until they end; the watcher keeps every open run and the latest ended ones.
import type { WatchedFinding, WatchedRepair } from '../../contract/drift-watch-messages';
import {
  carryRepairRuns,
  ENDED_REPAIRS_KEPT,
  hasRepairWork,
  keptRepairs,
  repairsToStart,
  stillOpen,
} from '../../workflows/drift-repairs';

const finding = (rule: string, id: string, extra: Partial<WatchedFinding> = {}): WatchedFinding => ({
  rule,
  severity: 'error',
  service: { id, name: `svc-${id}` },
  expected: 'true',
  found: {},
  ...extra,
});
const auto = (rule: string, id: string, runbook = 'enable-ha.yaml', extra: Partial<WatchedFinding> = {}) =>
  finding(rule, id, { repair: runbook, auto: true, ...extra });

const repair = (workflowId: string, outcome: WatchedRepair['outcome']): WatchedRepair => ({
  workflowId,
  runbook: 'enable-ha.yaml',
  service: { id: '1', name: 'svc-1' },
  rules: ['has-ha'],
  check: 1,
  outcome,
});

test('only findings of rules with repair.auto that have no repair run yet are repaired', () => {
  const findings = [
    finding('manual', '1', { repair: 'enable-ha.yaml' }),
    finding('no-repair', '1'),
    auto('has-ha', '2', 'enable-ha.yaml', { repairRun: 'w-repair-1-1' }),
    auto('has-ha', '3'),
  ];
  expect(repairsToStart(findings)).toEqual([
    { service: { id: '3', name: 'svc-3' }, runbook: 'enable-ha.yaml', findings: [auto('has-ha', '3')] },
  ]);
});

test('findings of one service repaired by one runbook become one run; other runbooks their own', () => {
  const findings = [
    auto('has-ha', '1'),
    auto('two-replicas', '1'),
    auto('has-pooler', '1', 'enable-pooler.yaml'),
    auto('has-ha', '2'),
  ];
  expect(
    repairsToStart(findings).map((r) => [r.service.id, r.runbook, r.findings.map((f) => f.rule)]),
  ).toEqual([
    ['1', 'enable-ha.yaml', ['has-ha', 'two-replicas']],
    ['1', 'enable-pooler.yaml', ['has-pooler']],
    ['2', 'enable-ha.yaml', ['has-ha']],
  ]);
});

test('a finding that stays open keeps its repair run: it is repaired once however many checks see it', () => {
  const first = [auto('has-ha', '1', 'enable-ha.yaml', { repairRun: 'w-repair-1-1' })];
  let open = first;
  for (let check = 0; check < 5; check += 1) {
    open = carryRepairRuns(open, [auto('has-ha', '1', 'enable-ha.yaml', { found: { n: check } })]);
    expect(open[0]?.repairRun).toBe('w-repair-1-1');
    expect(repairsToStart(open)).toEqual([]);
  }
});

test('a finding that clears and comes back is repaired again', () => {
  const repaired = [auto('has-ha', '1', 'enable-ha.yaml', { repairRun: 'w-repair-1-1' })];
  const cleared = carryRepairRuns(repaired, []);
  expect(cleared).toEqual([]);
  const back = carryRepairRuns(cleared, [auto('has-ha', '1')]);
  expect(back[0]?.repairRun).toBeUndefined();
  expect(repairsToStart(back)).toHaveLength(1);
});

test('a repair run is carried by (rule, service id): another rule of the service is not covered', () => {
  const before = [auto('has-ha', '1', 'enable-ha.yaml', { repairRun: 'w-repair-1-1' })];
  const now = carryRepairRuns(before, [auto('has-ha', '1'), auto('has-ha', '2'), auto('two-replicas', '1')]);
  expect(now.map((f) => f.repairRun)).toEqual(['w-repair-1-1', undefined, undefined]);
});

test('runs are read until they end; a refusal, a failure or a start that did not happen ends it', () => {
  expect(stillOpen(repair('a', { kind: 'running' }))).toBe(true);
  expect(stillOpen(repair('a', { kind: 'held', stepKey: 's', reason: 'r' }))).toBe(true);
  expect(stillOpen(repair('a', { kind: 'awaiting-window', until: 1, rule: 'r' }))).toBe(true);
  expect(stillOpen(repair('a', { kind: 'repaired' }))).toBe(false);
  expect(stillOpen(repair('a', { kind: 'refused', code: 'POLICY_DENIED', reason: 'no' }))).toBe(false);
  expect(stillOpen(repair('a', { kind: 'failed', status: 'failed', code: 'X', reason: 'r' }))).toBe(false);
  expect(stillOpen(repair('a', { kind: 'not-started', code: 'REPAIR_NOT_NEEDED', reason: 'r' }))).toBe(false);
});

test('a check has repair work when a finding needs a repair or a run is still open', () => {
  const ended = repair('a', { kind: 'refused', code: 'POLICY_DENIED', reason: 'no' });
  expect(hasRepairWork([finding('has-ha', '1')], [ended])).toBe(false);
  expect(hasRepairWork([auto('has-ha', '1', 'enable-ha.yaml', { repairRun: 'a' })], [ended])).toBe(false);
  expect(hasRepairWork([auto('has-ha', '1')], [])).toBe(true);
  expect(hasRepairWork([], [repair('b', { kind: 'running' })])).toBe(true);
});

test('the watcher keeps every open run and the latest ended ones, oldest first', () => {
  const ended = Array.from({ length: ENDED_REPAIRS_KEPT + 3 }, (_, i) =>
    repair(`e${i}`, { kind: 'repaired' }),
  );
  const open = repair('open', { kind: 'running' });
  const kept = keptRepairs([open, ...ended]);
  expect(kept[0]).toBe(open);
  expect(kept.slice(1).map((r) => r.workflowId)).toEqual(ended.slice(3).map((r) => r.workflowId));
});
