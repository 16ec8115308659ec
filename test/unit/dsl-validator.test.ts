// The static validator: one bad runbook per rule (test/fixtures/runbooks/invalid), asserting every
// problem it reports — rule, message and file:line:column — so nothing is missed and nothing extra
// appears.
import { join } from 'node:path';
import { checkRunbookFile, checkRunbookText } from '../../dsl/loader';
import type { RunbookProblem } from '../../dsl/problems';
import { formatProblem } from '../../dsl/problems';

const dir = join('test', 'fixtures', 'runbooks', 'invalid');

/** `line:col rule: message`, prefixed with the file name when the problem is in another file. */
function describe_(file: string, problem: RunbookProblem): string {
  const other = problem.file !== join(dir, file) ? `${(problem.file ?? '').split('/').pop()}:` : '';
  return `${other}${problem.line}:${problem.column} ${problem.rule}: ${problem.message}`;
}

const EXPECTED: Record<string, string[]> = {
  'action-input.yaml': [
    '10:5 action-input: `service.create` needs `name` in `with`',
    '12:7 action-input: `service.create` has no input field `nmae`',
    '13:22 action-input: `service.create` `replica_count` must be a number, not a string',
    '18:51 action-input: `service.create` `cpu_millis`: size 1000/5 is not allowed; allowed cpu_millis/memory_gbs pairs: shared/shared, 500/2, 1000/4, 2000/8, 4000/16, 8000/32, 16000/64, 32000/128',
    '27:5 action-input: `service.resize` needs `memory_gbs` in `with`',
    '31:5 action-input: `service.list` needs `project_id` in `with`',
    '35:51 action-input: `service.attachToVpc` `vpc_id` must be a VPC id, digits only (e.g. "1234567890")',
    '44:37 action-input: `service.metricsSeries` `filters.0.value` must have at least one character',
  ],
  'child-broken.yaml': ['unknown-action.yaml:8:11 unknown-action: unknown action `service.craete`'],
  'child-inputs.yaml': [
    '7:5 child-inputs: child runbook `child` needs input `project_id`',
    '7:5 child-inputs: child runbook `child` needs input `service_id`',
    '7:13 child-inputs: child runbook `child` has no input `service`',
    '7:33 child-inputs: input `count` of `child` must be an integer',
    '9:13 output-field: child runbook `child` has no output `nope`',
  ],
  'child-missing.yaml': ['6:14 child-runbook: child runbook `./does-not-exist.yaml` not found'],
  'cycle-a.yaml': [
    'cycle-b.yaml:6:14 child-runbook: runbook `./cycle-a.yaml` runs itself through its children (a cycle)',
  ],
  'cycle-b.yaml': [
    'cycle-a.yaml:6:14 child-runbook: runbook `cycle-b.yaml` runs itself through its children (a cycle)',
  ],
  'duplicate-id.yaml': [
    '11:17 duplicate-id: id `pause` is used more than once',
    '13:13 duplicate-id: id `left` is used more than once',
  ],
  'duration.yaml': [
    '6:12 duration: `sleep` must be a duration such as 30s, 5m, 1h30m, 500ms or 2d, or a ${{ … }} expression',
    '9:15 duration: `interval` is longer than `maxInterval`',
    '11:14 duration: `timeout` must be a duration with a unit, such as 30s, 5m, 1h30m, 500ms or 2d',
  ],
  'expressions.yaml': [
    '8:9 expression: cannot parse `inputs.n >`: Unexpected token: EOF',
    "11:13 expression: `sise(inputs.n) > 0`: found no matching overload for 'sise(dyn)'",
    '13:9 condition-type: `inputs.n + 1` gives int, but a condition must be true or false',
    '16:13 expression: `n is ${{ inputs.n }}` mixes text and `${{ }}`; write one expression, either bare or as `${{ expr }}`',
    '18:11 expression: `broken ${{ inputs.n` opens `${{` without a closing `}}`',
    "20:14 condition-type: `'abc'` gives string, but foreach needs a list",
  ],
  'foreach-budget.yaml': [
    '7:16 schema: `maxErrors` must be a count (0, 1, …) or a percentage of the items from 0% to 100%, e.g. 10% or 2.5%',
    '11:16 schema: `maxErrors` must be a count (0, 1, …) or a percentage of the items from 0% to 100%, e.g. 10% or 2.5%',
    '15:16 schema: `maxErrors` must be at least 0',
    '19:18 foreach-budget: `onMaxErrors` says what happens once `maxErrors` is exceeded, but this foreach has no `maxErrors`',
    '24:20 schema: `start` must be at least 1',
    '24:31 schema: `factor` must be more than 1',
    '34:12 foreach-budget: a foreach starts its items either in `waves` or along a `ramp`, not both',
  ],
  'input-spec.yaml': [
    '5:17 input-spec: enum input `size` needs `values`',
    '6:36 input-spec: `pattern` applies to string inputs only; `count` is an integer',
    '6:53 input-spec: `min` is greater than `max`',
    '7:33 input-spec: `values` applies to enum inputs only; `name` is a string',
    '7:50 input-spec: the default of `name` must be a string',
    '8:33 duration: `min` of a duration input must be a duration such as 5m',
    '9:36 input-spec: input `must` is required, so its default is never used',
  ],
  'references.yaml': [
    '9:65 reference: `late` runs later than this step, so its output does not exist yet',
    '12:65 reference: step `self` reads its own output, which does not exist yet',
    '15:65 reference: `steps.nope` refers to no step',
    '30:29 reference: `left_get` runs in branch `left`, a parallel sibling of this branch (`right`)',
    '39:13 reference: `inner` runs inside foreach `each`, once per item',
    '39:13 reference: `steps.late.state` does not exist',
    '43:13 reference: `steps.dashed-id` reads as a subtraction in CEL, because the id contains `-`',
  ],
  'schema.yaml': [
    '2:7 schema: `name` must be kebab-case: lowercase letters and digits joined by single hyphens',
    '5:5 schema: the step has no kind; give exactly one of: call, wait, sleep, approve, assert, parallel, foreach, runbook, fail, watch',
    '7:5 schema: a step does one thing, but this one has `call` and `sleep`',
    '10:9 schema: `id` must start with a lowercase letter and use only a-z, 0-9, _ and -',
    '14:5 schema: unknown field `retries`',
    '15:5 schema: missing required field `id`',
  ],
  'secrets.yaml': [
    '6:49 secret-leak: secret input `token` has a default written in the runbook',
    '17:19 secret-leak: `password` is written into the runbook in plain text',
    '20:11 secret-leak: the `fail` message is not secret but reads `steps.create.output.initial_password`',
    '23:15 secret-leak: output `everything` is not secret but reads `steps.create.output`, which includes initial_password',
    '24:19 secret-leak: output `token` is not secret but reads the secret input `token`',
  ],
  'structure.yaml': [
    '11:9 compensate-nested: a compensation step cannot have its own `compensate`',
    '15:14 approve-default: `default` applies when `timeout` passes, but this approval has no `timeout`',
  ],
  'unknown-action.yaml': ['8:11 unknown-action: unknown action `service.craete`'],
  'variables.yaml': [
    '9:65 unknown-input: `inputs.service` is not a declared input',
    "11:13 unknown-variable: `result` is not defined here (in `result.status == 'READY'`)",
    '13:11 unknown-variable: `item` is not defined here',
    '17:12 output-field: `service.get` answers have no field `stauts`',
    '17:12 output-field: `service.get` answers have no field `hots`',
    '22:13 output-field: `service.delete` answers without a body, so `steps.nobody.output` is null',
  ],
  'approvers.yaml': [
    '7:19 approve-approvers: `minApprovals` applies only to an approval with `approvers`',
    '8:24 approve-approvers: `allowSelfApproval` applies only to an approval with `approvers`',
    '11:29 approve-approvers: `alice` is listed twice',
    '15:19 approve-approvers: 3 approvals are needed but only 2 people are listed',
    '22:17 schema: `approvers[0]` must be a name or group:NAME (letters, digits, . _ @ -)',
    '22:27 schema: `approvers[1]` must be a name or group:NAME (letters, digits, . _ @ -)',
  ],
  'wait-not-read.yaml': [
    '6:11 wait-not-read: `wait` polls read actions only; `service.resize` is a mutate action',
    '12:12 adopt-not-create: `adopt` applies to create actions only; `service.setEnvironment` is a mutate action',
  ],
};

describe('validator rules', () => {
  it.each(Object.entries(EXPECTED))('%s reports exactly its problems', (file, expected) => {
    const { definition, problems } = checkRunbookFile(join(dir, file));
    expect(definition).toBeUndefined();
    expect(problems.map((p) => describe_(file, p))).toEqual(expected);
  });

  it('suggests the closest name for misspelt actions, fields, steps, inputs and answer fields', () => {
    const hints = (file: string) => checkRunbookFile(join(dir, file)).problems.map((p) => p.hint);
    expect(hints('unknown-action.yaml')).toEqual(['did you mean `service.create`?']);
    expect(hints('action-input.yaml')).toContain('did you mean `name`?');
    expect(hints('variables.yaml')).toEqual(
      expect.arrayContaining([
        'did you mean `status`?',
        'did you mean `host`?',
        'declared inputs: project_id',
      ]),
    );
    expect(hints('duplicate-id.yaml')[0]).toBe(
      'first used at line 5, column 5; ids must be unique across the whole runbook',
    );
    expect(hints('schema.yaml')).toContain(
      'fields allowed here: id, name, description, if, timeout, retry, continueOnError, onFailure, sleep, compensate',
    );
  });

  it('formats problems as file:line:column: message with the hint below', () => {
    const [first] = checkRunbookFile(join(dir, 'unknown-action.yaml')).problems;
    expect(formatProblem(first as RunbookProblem)).toBe(
      `${join(dir, 'unknown-action.yaml')}:8:11: unknown action \`service.craete\`\n  hint: did you mean \`service.create\`?`,
    );
  });

  it('never quotes secret values in problems', () => {
    const text = checkRunbookFile(join(dir, 'secrets.yaml')).problems.map(formatProblem).join('\n');
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain('plain-text-pw');
  });

  it('reports YAML syntax errors with their positions', () => {
    const text = [
      'apiVersion: tideline/v1',
      'name: x',
      'steps:',
      '  - id: a',
      '    sleep: 5s',
      '    sleep: 6s',
      '',
    ].join('\n');
    const { problems, definition } = checkRunbookText(text, 'inline.yaml');
    expect(definition).toBeUndefined();
    expect(problems.map((p) => [p.rule, p.file, p.line, p.column])).toEqual([['yaml', 'inline.yaml', 6, 5]]);
    expect(problems[0]?.message).toBe('YAML: Map keys must be unique');
    const unclosed = checkRunbookText('apiVersion: tideline/v1\nsteps: [\n', 'unclosed.yaml').problems;
    expect(unclosed.length).toBeGreaterThan(0);
    expect(unclosed.every((p) => p.rule === 'yaml' && p.line !== undefined)).toBe(true);
    const two = checkRunbookText('apiVersion: tideline/v1\nname: x\n---\nname: y\n', 'two.yaml').problems;
    expect(two.map((p) => `${p.line}:${p.column} ${p.rule}: ${p.message} | ${p.hint ?? ''}`)).toEqual([
      '3:1 yaml: YAML: a second document starts here; a runbook file holds one | remove the `---` line and what follows, or put each runbook in a file of its own',
    ]);
  });

  it('names the mistake inside a compensate list, as for a single compensate step, parallel and foreach', () => {
    const step = (id: string, lines: string[]) => [
      `  - id: ${id}`,
      '    call: service.create',
      '    with: { project_id: p, name: x }',
      ...lines,
    ];
    const text = [
      'apiVersion: tideline/v1',
      'name: undo-lists',
      'description: Mistakes inside compensations.',
      'steps:',
      ...step('single', [
        '    compensate: { id: u0, call: service.delet, with: { project_id: p, service_id: s } }',
      ]),
      ...step('listed', [
        '    compensate:',
        '      - id: u1',
        '        call: service.delet',
        '        with: { project_id: p, service_id: s }',
        '      - { id: u2, sleep: 1 }',
        '      - { id: u3, sleeep: 1s }',
      ]),
      ...step('empty', ['    compensate: []']),
      '',
    ].join('\n');
    const problems = checkRunbookText(text, 'undo.yaml').problems;
    expect(problems.map((p) => `${p.line}:${p.column} ${p.rule}: ${p.message} | ${p.hint ?? ''}`)).toEqual([
      '8:33 unknown-action: unknown action `service.delet` | did you mean `service.delete`?',
      '14:15 unknown-action: unknown action `service.delet` | did you mean `service.delete`?',
      '16:26 duration: `sleep` must be a duration with a unit, such as 30s, 5m, 1h30m, 500ms or 2d | ',
      '17:9 schema: the step has no kind; give exactly one of: call, wait, sleep, approve, assert, parallel, foreach, runbook, fail, watch | did you mean `sleep`?',
      '21:17 schema: `compensate` must not be empty | ',
    ]);
  });

  it('refuses durations longer than 10 years, wherever a runbook writes one', () => {
    const text = [
      'apiVersion: tideline/v1',
      'name: forever',
      'description: Durations nobody means.',
      'holdTimeout: 3651d',
      'steps:',
      '  - id: nap',
      '    sleep: 999999999999999999999d',
      '  - id: poll',
      '    wait: service.get',
      '    with: { project_id: p, service_id: s }',
      "    until: 'true'",
      '    timeout: 100000h',
      '    retry: { attempts: 2, initialInterval: 1s, maxInterval: 5000000000s }',
      '  - id: fine',
      '    sleep: 3650d',
      '  - id: templated',
      '    sleep: \'${{ string(100000) + "d" }}\'',
      '',
    ].join('\n');
    const problems = checkRunbookText(text, 'forever.yaml').problems;
    const limit = 'is longer than 3650d (10 years), the longest duration a runbook may give';
    expect(problems.map((p) => `${p.line}:${p.column} ${p.rule}: ${p.message}`)).toEqual([
      `4:14 duration: \`holdTimeout\` ${limit}`,
      `7:12 duration: \`sleep\` ${limit}`,
      `12:14 duration: \`timeout\` ${limit}`,
      `13:61 duration: \`maxInterval\` ${limit}`,
    ]);
    expect(problems[1]?.hint).toBe('check the number and the unit (ms, s, m, h, d)');
  });

  it('checks templated with-fields for existence only, literal ones fully', () => {
    const text = [
      'apiVersion: tideline/v1',
      'name: templated',
      'description: Templated values pass whatever type the field has.',
      'inputs:',
      '  n: { type: integer, default: 1 }',
      '  size: { type: string, default: "1000" }',
      'steps:',
      '  - id: ha',
      '    call: service.setHA',
      '    with: { project_id: p, service_id: s, replica_count: "${{ inputs.n }}", sync_replica_count: 0 }',
      '  - id: create',
      '    call: service.create',
      '    with: { project_id: p, name: x, addons: ["${{ inputs.size }}"], cpu_millis: "${{ inputs.size }}", memory_gbs: "4" }',
      '',
    ].join('\n');
    expect(checkRunbookText(text, 'templated.yaml').problems).toEqual([]);
  });
});
