// The `watch` step kind: how it is written and checked (each mistake one problem at line:col), and
// how it normalises (and which definition format it needs). The wait activity's watch ends are in
// activities-wait.test.ts.
import { DEFAULT_WATCH_EVERY_MS } from '../../dsl/definition';
import { checkRunbookText, loadRunbookText } from '../../dsl/loader';

const HEAD = [
  'apiVersion: tideline/v1',
  'name: bake',
  'description: Watch a service for a while.',
  'steps:',
  '  - id: bake',
  '    watch: service.get',
  '    with: { project_id: p, service_id: s }',
];

const text = (lines: string[]) => [...HEAD, ...lines, ''].join('\n');

/** Problems of HEAD + the given lines, as `line:col rule: message`. */
function problems(lines: string[]): string[] {
  return checkRunbookText(text(lines), 'bake.yaml').problems.map(
    (p) => `${p.line}:${p.column} ${p.rule}: ${p.message}`,
  );
}

describe('watch', () => {
  it('normalises to a format-3 definition with its durations in milliseconds', () => {
    const definition = loadRunbookText(
      text(['    for: 10m', '    every: 30s', '    failIf: "${{ result.status == \'PAUSED\' }}"']),
      'bake.yaml',
    );
    expect(definition.formatVersion).toBe(3);
    expect(definition.steps[0]).toMatchObject({
      kind: 'watch',
      action: 'service.get',
      with: { project_id: 'p', service_id: 's' },
      failIf: "result.status == 'PAUSED'",
      forMs: 600_000,
      everyMs: 30_000,
    });
  });

  it('reads every 15 seconds unless told', () => {
    const definition = loadRunbookText(
      text(['    for: 1m', "    failIf: result.status == 'PAUSED'"]),
      'bake.yaml',
    );
    expect(definition.steps[0]).toMatchObject({ everyMs: DEFAULT_WATCH_EVERY_MS });
  });

  it.each<[string, string[], string]>([
    ['no `for`', ["    failIf: result.status == 'PAUSED'"], '5:5 schema: missing required field `for`'],
    ['no `failIf`', ['    for: 1m'], '5:5 schema: missing required field `failIf`'],
    [
      'a field the answer does not have',
      ['    for: 1m', '    failIf: result.phase == 1'],
      '9:13 output-field: `service.get` answers have no field `phase`',
    ],
    [
      'a condition that is not a boolean',
      ['    for: 1m', '    failIf: result.status'],
      '9:13 condition-type: `result.status` gives string, but a condition must be true or false',
    ],
    [
      'an `every` longer than `for`',
      ['    for: 1m', '    every: 2m', "    failIf: result.status == 'PAUSED'"],
      '9:12 duration: `every` is longer than `for`: the watch would read at most once',
    ],
    [
      'a `timeout`',
      ['    for: 1m', '    timeout: 2m', "    failIf: result.status == 'PAUSED'"],
      '9:14 duration: a watch lasts `for` and has no `timeout`',
    ],
  ])('reports %s, once, at its position', (_what, lines, expected) => {
    expect(problems(lines)).toEqual([expected]);
  });

  it('reports an action that changes state at the action', () => {
    const written = text(['    for: 1m', '    failIf: "true"']).replace(
      'watch: service.get',
      'watch: service.delete',
    );
    expect(
      checkRunbookText(written, 'bake.yaml').problems.map(
        (p) => `${p.line}:${p.column} ${p.rule}: ${p.message}`,
      ),
    ).toEqual(['6:12 wait-not-read: `watch` polls read actions only; `service.delete` is a delete action']);
  });

  it('types its output as the watched action’s answer', () => {
    const later = ['  - id: after', '    assert: "${{ steps.bake.output.phase == 1 }}"'];
    expect(problems(['    for: 1m', "    failIf: result.status == 'PAUSED'", ...later])).toEqual([
      '11:13 output-field: `service.get` answers have no field `phase`',
    ]);
  });
});
