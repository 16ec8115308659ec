// Coverage of `tideline test` (rehearsal/coverage.ts): from a runbook's definition and the
// step records its cases ended with, which steps were reached, which branches taken and which
// failure paths seen — foreach iterations folded onto their step, compensation steps by their
// `/undo.` key, a cancelled step not counted as failing, and the run's status read back from the
// status expectation.
import path from 'node:path';
import type { StepRecord, StepStatus } from '../../contract/run-messages';
import type { CoverageCase, CoverageResult } from '../../rehearsal/coverage';
import { keyedSteps, patternKey, suiteCoverage } from '../../rehearsal/coverage';
import { loadRunbookFile, loadRunbookText } from '../../dsl/loader';

const record = (key: string, status: StepStatus, extra: Partial<StepRecord> = {}): StepRecord => ({
  key,
  id: key.split(/[./]/).at(-1) ?? key,
  kind: 'call',
  status,
  ...extra,
});
const outcome = (steps: StepRecord[], extra: Partial<CoverageResult> = {}): CoverageResult => ({
  steps,
  mismatches: [],
  ...extra,
});

describe('fork-and-promote.yaml, approved and rejected', () => {
  const definition = loadRunbookFile(path.resolve(__dirname, '../../runbooks/fork-and-promote.yaml'));
  const testCase = (status: CoverageCase['expect']['status']): CoverageCase => ({
    file: 'runbooks/fork-and-promote.test.yaml',
    runbook: 'fork-and-promote.yaml',
    definition,
    expect: { status },
  });
  const done = (keys: string[]) => keys.map((key) => record(key, 'done'));
  const skipped = (keys: string[]) => keys.map((key) => record(key, 'skipped'));
  // The parent is in a VPC, has neither HA nor a pooler: those four steps are skipped.
  const approved = outcome([
    ...done(['parent', 'check_parent', 'fork', 'fork_ready', 'approval']),
    ...skipped(['fork_ha', 'fork_ha_ready']),
    ...done(['fork_attach', 'fork_attached']),
    ...skipped(['fork_pooler', 'fork_pooler_ready']),
    ...done(['fork_prod', 'parent_dev', 'parent_detach', 'parent_detached', 'parent_stop', 'parent_paused']),
  ]);
  const rejected = outcome([
    ...done(['parent', 'check_parent']),
    record('fork', 'compensated'),
    record('fork/undo.delete_fork', 'done', { compensates: 'fork' }),
    record('fork/undo.fork_gone', 'done', { compensates: 'fork' }),
    record('fork_ready', 'done'),
    record('approval', 'failed', { kind: 'approve', error: { type: 'APPROVAL_REJECTED', message: 'no' } }),
    record('fork_ha', 'pending'),
    record('parent_dev', 'pending'),
  ]);

  it('counts every step, compensation steps included, and names the ones no case reached', () => {
    expect(keyedSteps(definition)).toHaveLength(25);
    const [coverage] = suiteCoverage([testCase('succeeded'), testCase('failed')], [approved, rejected]);
    expect(coverage?.runbook).toBe(path.join('runbooks', 'fork-and-promote.yaml'));
    expect(coverage?.cases).toBe(2);
    expect(coverage?.steps).toEqual({
      covered: 15,
      total: 25,
      uncovered: [
        'fork_ha',
        'fork_ha_ready',
        'fork_pooler',
        'fork_pooler_ready',
        'parent_dev/undo.parent_settled',
        'parent_dev/undo.parent_start',
        'parent_dev/undo.parent_running',
        'parent_dev/undo.parent_reattach',
        'parent_dev/undo.parent_reattached',
        'parent_dev/undo.parent_prod_again',
      ],
    });
  });

  it('counts both sides of every if, both answers of the approval and each compensation', () => {
    const [coverage] = suiteCoverage([testCase('succeeded'), testCase('failed')], [approved, rejected]);
    expect(coverage?.branches.covered).toBe(12);
    expect(coverage?.branches.total).toBe(12 * 2 + 2 + 2);
    expect(coverage?.branches.uncovered.map((b) => `${b.step} ${b.outcome}`)).toEqual([
      'approval not-taken',
      'fork_ha taken',
      'fork_ha_ready taken',
      'fork_attach not-taken',
      'fork_attached not-taken',
      'fork_pooler taken',
      'fork_pooler_ready taken',
      'parent_dev compensated',
      'parent_dev/undo.parent_start taken',
      'parent_dev/undo.parent_start not-taken',
      'parent_dev/undo.parent_reattach taken',
      'parent_dev/undo.parent_reattach not-taken',
      'parent_dev/undo.parent_reattached taken',
      'parent_dev/undo.parent_reattached not-taken',
      'parent_detach not-taken',
      'parent_detached not-taken',
    ]);
  });

  it('counts the rejected approval as a failure seen, and the failed run as its rollback', () => {
    const [coverage] = suiteCoverage([testCase('succeeded'), testCase('failed')], [approved, rejected]);
    expect(coverage?.failurePaths.covered).toBe(2);
    expect(coverage?.failurePaths.total).toBe(25 + 2);
    expect(coverage?.failurePaths.uncovered).not.toContainEqual({ step: 'approval' });
    expect(coverage?.failurePaths.uncovered).not.toContainEqual({ run: 'rollback' });
    expect(coverage?.failurePaths.uncovered).toContainEqual({ step: 'fork' });
    expect(coverage?.failurePaths.uncovered.at(-1)).toEqual({ run: 'hold' });
  });

  it('counts only the cases given (a filter narrows it)', () => {
    const [coverage] = suiteCoverage([testCase('succeeded')], [approved]);
    expect(coverage?.cases).toBe(1);
    expect(coverage?.steps.covered).toBe(13);
    expect(coverage?.branches.uncovered).toContainEqual({ step: 'approval', outcome: 'rejected' });
    expect(coverage?.branches.uncovered).toContainEqual({ step: 'fork', outcome: 'compensated' });
    expect(coverage?.failurePaths.covered).toBe(0);
  });
});

const FLEET = `apiVersion: tideline/v1
name: fleet
description: t
inputs:
  ids: { type: list }
steps:
  - id: pause
    sleep: 1s
  - id: short
    sleep: 1s
    timeout: 5s
  - id: each
    foreach: '\${{ inputs.ids }}'
    as: id
    steps:
      - id: stop
        call: service.stop
        with: { project_id: p, service_id: '\${{ id }}' }
        compensate:
          - id: start
            call: service.start
            with: { project_id: p, service_id: '\${{ id }}' }
  - id: both
    parallel:
      - id: left
        steps:
          - id: l1
            if: '\${{ size(inputs.ids) > 1 }}'
            call: service.get
            with: { project_id: p, service_id: s }
      - id: right
        steps:
          - id: r1
            call: service.get
            with: { project_id: p, service_id: s }
`;

describe('nested steps', () => {
  const definition = loadRunbookText(FLEET, 'ops/fleet.yaml');
  const fleetCase = (status: CoverageCase['expect']['status'] = 'failed'): CoverageCase => ({
    file: 'ops/tests/fleet.test.yaml',
    runbook: '../fleet.yaml',
    definition,
    expect: { status },
  });

  it('keys foreach bodies with [*], branches by their id and compensations with /undo.', () => {
    expect(keyedSteps(definition).map((s) => s.key)).toEqual([
      'pause',
      'short',
      'each',
      'each[*].stop',
      'each[*].stop/undo.start',
      'both',
      'both.left.l1',
      'both.right.r1',
    ]);
    expect(patternKey('each[12].stop/undo.start')).toBe('each[*].stop/undo.start');
  });

  it('folds every iteration onto its step; a cancelled step did not fail itself', () => {
    const result = outcome([
      record('pause', 'done'),
      record('short', 'done'),
      record('each', 'done'),
      record('each[0].stop', 'compensated'),
      record('each[0].stop/undo.start', 'failed', {
        compensates: 'each[0].stop',
        error: { type: 'X', message: 'x' },
      }),
      record('each[1].stop', 'done'),
      record('both', 'failed'),
      record('both.left.l1', 'failed', { error: { type: 'CANCELLED', message: 'the run was cancelled' } }),
      record('both.right.r1', 'failed', { error: { type: 'CLOUD_API_NOT_FOUND', message: 'gone' } }),
    ]);
    const [coverage] = suiteCoverage([fleetCase()], [result]);
    expect(coverage?.runbook).toBe(path.join('ops', 'fleet.yaml'));
    expect(coverage?.steps).toEqual({ covered: 8, total: 8, uncovered: [] });
    expect(coverage?.branches.uncovered).toEqual([{ step: 'both.left.l1', outcome: 'not-taken' }]);
    expect(coverage?.branches.covered).toBe(2);
    // A sleep without a timeout cannot fail; the parallel fails through its steps only.
    expect(coverage?.failurePaths).toEqual({
      covered: 3,
      total: 7,
      uncovered: [{ step: 'short' }, { step: 'each[*].stop' }, { step: 'both.left.l1' }, { run: 'hold' }],
    });
  });

  it('reads how the run ended from the status mismatch, and not at all when the case errored', () => {
    const held = outcome([record('pause', 'done')], {
      mismatches: [{ what: 'status', expected: 'failed', actual: 'held' }],
    });
    const timedOut = outcome([record('pause', 'running')], {
      error: { code: 'TEST_CASE_TIMEOUT', message: 'the run did not end' },
    });
    const [coverage] = suiteCoverage([fleetCase('failed'), fleetCase('failed')], [held, timedOut]);
    expect(coverage?.failurePaths.uncovered).toContainEqual({ run: 'rollback' });
    expect(coverage?.failurePaths.uncovered).not.toContainEqual({ run: 'hold' });
    expect(coverage?.steps.covered).toBe(1);
  });

  it('gives one entry per runbook file, sorted, and refuses results that do not match the cases', () => {
    const other: CoverageCase = { ...fleetCase(), file: 'a/fleet.test.yaml', runbook: 'fleet.yaml' };
    const found = suiteCoverage([fleetCase(), other, fleetCase()], [outcome([]), outcome([]), outcome([])]);
    expect(found.map((c) => [c.runbook, c.cases])).toEqual([
      [path.join('a', 'fleet.yaml'), 1],
      [path.join('ops', 'fleet.yaml'), 2],
    ]);
    expect(() => suiteCoverage([fleetCase()], [])).toThrow(/1 cases but 0 results/);
  });
});
