// The `watch` step kind: how it is written and checked (each mistake one problem at line:col), how
// it normalises (and which definition format it needs), and how the wait activity runs it as a
// bake period (passes at its deadline, fails with WATCH_FAILED when `failIf` holds).
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps, CloudCaller } from '../../activities/deps';
import { createWaitActivity, type WaitInput, type WaitResult } from '../../activities/wait';
import { CloudApiError } from '../../cloud/errors';
import { DEFAULT_WATCH_EVERY_MS } from '../../dsl/definition';
import { checkRunbookText, loadRunbookText } from '../../dsl/loader';
import { rejectionOf } from '../helpers/rejection';

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

describe('watch: the language', () => {
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

/** A caller answering with each of `answers` in turn, then the last one forever. */
function scripted(answers: unknown[]): CloudCaller & { calls: number } {
  const caller = {
    calls: 0,
    async call() {
      const answer = answers[Math.min(caller.calls, answers.length - 1)];
      caller.calls += 1;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return caller as unknown as CloudCaller & { calls: number };
}

const deps = (caller: CloudCaller): ActivityDeps => ({
  clients: { forProject: () => caller },
  random: () => 0,
});

const watch = (overrides: Partial<WaitInput> = {}): WaitInput => ({
  action: 'service.get',
  input: { project_id: 'p1', service_id: 's1' },
  failIf: "result.status == 'PAUSED'",
  startedAt: Date.now(),
  deadline: Date.now() + 300,
  intervalMs: 20,
  maxIntervalMs: 20,
  watch: true,
  ...overrides,
});

describe('watch: the activity', () => {
  it('passes at its deadline with the last answer when the condition never holds', async () => {
    const caller = scripted([
      { status: 'READY', n: 1 },
      { status: 'READY', n: 2 },
    ]);
    const watched = (await new MockActivityEnvironment().run(
      createWaitActivity(deps(caller)),
      watch(),
    )) as WaitResult;
    expect(watched.result).toEqual({ status: 'READY', n: 2 });
    expect(watched.polls).toBe(caller.calls);
    expect(watched.polls).toBeGreaterThan(1);
  });

  it('fails with WATCH_FAILED at the first answer where the condition holds', async () => {
    const caller = scripted([{ status: 'READY' }, { status: 'PAUSED' }, { status: 'READY' }]);
    const failure = await rejectionOf(
      new MockActivityEnvironment().run(
        createWaitActivity(deps(caller)),
        watch({ deadline: Date.now() + 60_000 }),
      ),
      ApplicationFailure,
    );
    expect(failure.type).toBe('WATCH_FAILED');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      "service.get met the failure condition `result.status == 'PAUSED'` (status PAUSED) at read 2",
    );
    expect(caller.calls).toBe(2);
  });

  it('fails at its deadline when no read was answered', async () => {
    const caller = scripted([
      new CloudApiError({ code: 'CLOUD_API_SERVER_ERROR', message: 'boom', status: 503 }),
    ]);
    const failure = await rejectionOf(
      new MockActivityEnvironment().run(createWaitActivity(deps(caller)), watch()),
      ApplicationFailure,
    );
    expect(failure.type).toBe('WAIT_TIMEOUT');
    expect(failure.message).toMatch(/^gave up waiting for an answer to watch on service.get after/);
  });
});
