// onFailure / holdTimeout: normalised only when written (old definitions unchanged), a
// container's onFailure is the default of its steps, the validator refuses holds that cannot
// work, and the reads of a step's output that a skip must satisfy.
import { checkRunbookText, loadRunbookText } from '../../dsl/loader';
import { missingOutputField, outputReads } from '../../dsl/output-reads';

const RUNBOOK = `
apiVersion: tideline/v1
name: on-failure
description: test
onFailure: hold
holdTimeout: 2h
steps:
  - id: first
    call: service.get
    with: { project_id: p, service_id: s }
  - id: each
    foreach: "\${{ [1, 2] }}"
    onFailure: rollback
    steps:
      - id: inner
        assert: "\${{ steps.first.output.vpcEndpoint.vpc_id != '' }}"
      - id: own
        onFailure: hold
        assert: "true"
  - id: last
    if: "\${{ steps.first.output.status == 'READY' }}"
    fail: "\${{ steps.first.output.name }}"
outputs:
  any: { value: "\${{ steps.first.output }}", secret: true }
`;

describe('onFailure and holdTimeout', () => {
  test('are normalised as written; a container passes its onFailure to its steps', () => {
    const definition = loadRunbookText(RUNBOOK, 'on-failure.yaml');
    expect(definition.onFailure).toBe('hold');
    expect(definition.holdTimeoutMs).toBe(2 * 60 * 60_000);
    expect(definition.steps[0]!.onFailure).toBeUndefined();
    const each = definition.steps[1]!;
    expect(each.kind === 'foreach' && each.steps.map((s) => s.onFailure)).toEqual(['rollback', 'hold']);
    const plain = loadRunbookText(
      'apiVersion: tideline/v1\nname: plain\ndescription: d\nsteps:\n  - id: a\n    sleep: 1s\n',
      'plain.yaml',
    );
    expect('onFailure' in plain).toBe(false);
    expect('holdTimeoutMs' in plain).toBe(false);
    expect('onFailure' in plain.steps[0]!).toBe(false);
  });

  test('a compensation step or an approval cannot hold', () => {
    const text = `
apiVersion: tideline/v1
name: bad
description: d
steps:
  - id: ok
    approve: go?
    onFailure: hold
  - id: a
    sleep: 1s
    compensate:
      id: undo
      sleep: 1s
      onFailure: hold
  - id: b
    sleep: 1s
    onFailure: later
`;
    const problems = checkRunbookText(text, 'bad.yaml').problems;
    const rules = problems.map((p) => `${p.rule}: ${p.message}`);
    expect(rules).toEqual(
      expect.arrayContaining([
        'on-failure: an approval cannot hold the run: a rejection is a decision, and it rolls back',
        'on-failure: a compensation step cannot hold the run: compensation always runs to the end',
      ]),
    );
    expect(problems.some((p) => p.rule === 'schema' && p.path.includes('onFailure'))).toBe(true);
  });

  test('a skip output must have every field later expressions read', () => {
    const definition = loadRunbookText(RUNBOOK, 'on-failure.yaml');
    const reads = outputReads(definition, 'first');
    expect(reads).toEqual(expect.arrayContaining([['vpcEndpoint', 'vpc_id'], ['status'], ['name'], []]));
    const full = { vpcEndpoint: { vpc_id: 'v' }, status: 'READY', name: 'n' };
    expect(missingOutputField(full, reads)).toBeUndefined();
    expect(missingOutputField({ ...full, vpcEndpoint: {} }, reads)).toBe('vpcEndpoint.vpc_id');
    expect(missingOutputField({ ...full, status: undefined! }, reads)).toBe('status');
    expect(missingOutputField([1, 2], [['0'], ['5']])).toBe('5');
    expect(outputReads(definition, 'last')).toEqual([]);
  });
});
