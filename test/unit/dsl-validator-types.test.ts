// Typed expression checks, wait conditions, linear-time patterns and expression limits: each bad
// runbook reports exactly one problem at file:line:col with its message and hint; good ones pass.
import { withCpuTime } from '../helpers/cpu-time';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkExpression, evaluateExpression } from '../../dsl/expressions';
import { bindInputs } from '../../dsl/inputs';
import { checkRunbookFile, checkRunbookText } from '../../dsl/loader';

const HEAD = [
  'apiVersion: tideline/v1',
  'name: typed',
  'description: One mistake.',
  'inputs:',
  '  mode: { type: string, default: fast }',
  '  replicas: { type: integer, default: 1 }',
  '  project_id: { type: string, default: p }',
  'steps:',
  '  - id: list',
  '    call: service.list',
  '    with: { project_id: p }',
  '  - id: svc',
  '    call: service.get',
  '    with: { project_id: p, service_id: s }',
];
const WAIT = ['  - id: ready', '    wait: service.get', '    with: { project_id: p, service_id: s }'];

/** Problems of HEAD + the given lines, as `line:col rule: message | hint`. */
function problems(lines: string[], head = HEAD): string[] {
  const text = [...head, ...lines, ''].join('\n');
  return checkRunbookText(text, 'typed.yaml').problems.map(
    (p) => `${p.line}:${p.column} ${p.rule}: ${p.message} | ${p.hint ?? ''}`,
  );
}

const BAD: [string, string[], string][] = [
  [
    'a string input as a condition',
    ['  - id: a', "    if: '${{ inputs.mode }}'", '    sleep: 1s'],
    "16:9 condition-type: `inputs.mode` gives string, but a condition must be true or false | compare it, e.g. inputs.mode == 'yes'",
  ],
  [
    'a string answer field as until',
    [...WAIT, "    until: '${{ result.status }}'"],
    "18:12 condition-type: `result.status` gives string, but a condition must be true or false | compare it, e.g. result.status == 'yes'",
  ],
  [
    'a field of a string in failIf',
    [...WAIT, "    until: 'true'", "    failIf: '${{ result.status.name }}'"],
    '19:13 expression-type: `result.status.name`: `result.status` is a string, which has no fields | fields and indexes can be read from maps and lists only',
  ],
  [
    'a step output field as assert',
    ['  - id: a', "    assert: '${{ steps.svc.output.name }}'"],
    "16:13 condition-type: `steps.svc.output.name` gives string, but a condition must be true or false | compare it, e.g. steps.svc.output.name == 'yes'",
  ],
  [
    'int compared with string',
    ['  - id: a', '    assert: "${{ inputs.replicas > \'two\' }}"'],
    "16:13 expression-type: `inputs.replicas > 'two'`: cannot apply int > string | CEL does not mix types: compare like with like, or convert with int(…), double(…) or string(…)",
  ],
  [
    'int plus string in a template',
    ['  - id: a', '    fail: \'n is ${{ inputs.replicas + "x" }}\''],
    '16:11 expression-type: `inputs.replicas + "x"`: cannot apply int + string | CEL does not mix types: compare like with like, or convert with int(…), double(…) or string(…)',
  ],
  [
    'foreach over a string input',
    ['  - id: a', "    foreach: '${{ inputs.mode }}'", '    steps: [{ id: b, sleep: 1s }]'],
    "16:14 condition-type: `inputs.mode` gives string, but foreach needs a list | split text into a list, e.g. inputs.mode.split(','), or declare the input as type: list",
  ],
  [
    'foreach over an integer input',
    ['  - id: a', "    foreach: '${{ inputs.replicas }}'", '    steps: [{ id: b, sleep: 1s }]'],
    '16:14 condition-type: `inputs.replicas` gives int, but foreach needs a list | give a list: an input of type list, a list answer such as service.list, or [a, b]',
  ],
  [
    'a misspelt field of a loop variable typed from the list',
    [
      '  - id: a',
      "    foreach: '${{ steps.list.output }}'",
      '    as: svc_item',
      '    steps: [{ id: b, assert: "${{ svc_item.stauts == \'READY\' }}" }]',
    ],
    '18:30 expression-type: `svc_item.stauts`: `svc_item` has no field `stauts` | did you mean `status`?',
  ],
  [
    'a misspelt field inside a macro',
    [...WAIT, '    until: "${{ steps.list.output.exists(s, s.nme == result.name) }}"'],
    '18:12 expression-type: `s.nme`: `s` has no field `nme` | did you mean `name`?',
  ],
  [
    'a wait without until or untilDeleted',
    WAIT,
    "16:11 wait-condition: a wait needs `until` or `untilDeleted: true`; without one it would end at the first answer | e.g. until: \"${{ result.status == 'READY' }}\", or until: 'true' to take any answer",
  ],
  [
    'a pattern RE2 does not have',
    [],
    '5:31 input-spec: the pattern of `x` is not a valid RE2 regular expression (invalid or unsupported Perl syntax: `(?=`) | patterns are RE2 (linear time): no lookaround or backreferences, e.g. ^[a-z][a-z0-9-]{2,62}$',
  ],
  [
    'a literal matches() pattern RE2 does not have',
    ['  - id: a', "    assert: \"${{ inputs.mode.matches('^(?=f)') || inputs.mode == 'x' }}\""],
    "16:13 expression-type: `inputs.mode.matches('^(?=f)')`: the pattern is not a valid RE2 regular expression (invalid or unsupported Perl syntax: `(?=`) | patterns are RE2 (linear time): no lookaround or backreferences, e.g. ^[a-z][a-z0-9-]{2,62}$",
  ],
  [
    'a literal matches() pattern with an impossible repeat, inside a macro',
    [
      '  - id: a',
      '    assert: "${{ steps.list.output.exists(s, s.name.matches(\'((a{100}){100}){100}\')) }}"',
    ],
    "16:13 expression-type: `s.name.matches('((a{100}){100}){100}')`: the pattern is not a valid RE2 regular expression (invalid repeat count: `{100}`) | patterns are RE2 (linear time): no lookaround or backreferences, e.g. ^[a-z][a-z0-9-]{2,62}$",
  ],
  [
    'three nested loops over the data',
    [
      '  - id: a',
      "    assert: '${{ steps.list.output.exists(x, steps.list.output.exists(y, steps.list.output.exists(z, x == z))) }}'",
    ],
    '16:13 expression-limit: `steps.list.output.exists(x, steps.list.output.exists(y, steps.list.output.exi...`: the expression could do too much work (estimated degree 3 in the data size, factor 159): at most 1e+8 steps over a thousand items | split the work: compute parts in earlier steps, or loop with foreach',
  ],
];

describe('typed expressions, wait conditions, patterns and limits', () => {
  it.each(BAD)('%s', (name, lines, expected) => {
    const head =
      name === 'a pattern RE2 does not have'
        ? [...HEAD.slice(0, 4), "  x: { type: string, pattern: '^(?=a)' }", ...HEAD.slice(4)]
        : HEAD;
    expect(problems(lines, head)).toEqual([expected]);
  });

  it('accepts sound typed expressions, null tests, dyn values, RE2 matches and nested loops', () => {
    expect(
      problems([
        ...WAIT,
        "    until: \"${{ result.status == 'READY' && result.vpcEndpoint != null && 'spec' in result.resources[0] }}\"",
        "    failIf: \"${{ result.status in ['DELETING', 'DELETED'] || result.ha_replicas.replica_count > 1.5 }}\"",
        '  - id: each',
        '    foreach: \'${{ steps.list.output.filter(s, s.name.matches("^[a-z]+$")) }}\'',
        '    steps:',
        '      - { id: inner, assert: "${{ item.name != inputs.mode && has(item.endpoint) && inputs.replicas >= 1 }}" }',
        '  - id: pairs',
        "    assert: '${{ steps.list.output.all(a, steps.list.output.exists(b, a.name == b.name)) }}'",
        '  - id: any',
        '    if: \'${{ size(steps.each.output) > 0 && steps.ready.status == "done" }}\'',
        '    wait: service.get',
        '    with: { project_id: p, service_id: s }',
        "    until: 'true'",
        '  - id: gone',
        '    wait: service.get',
        '    with: { project_id: p, service_id: s }',
        '    untilDeleted: true',
      ]),
    ).toEqual([]);
  });

  it('validates a catastrophic-backtracking pattern against a long default quickly', () => {
    const value = `${'a'.repeat(5000)}!`;
    const head = [
      ...HEAD.slice(0, 4),
      `  x: { type: string, pattern: '^([a-z0-9]+-?)+$', default: '${value}' }`,
      ...HEAD.slice(4),
    ];
    const { value: found, cpuMs } = withCpuTime(() => problems([], head));
    expect(found).toEqual(['5:60 input-spec: the default of `x` must match the pattern ^([a-z0-9]+-?)+$ | ']);
    expect(cpuMs).toBeLessThan(5000);
  });

  it('binds and evaluates with RE2: adversarial values finish quickly', () => {
    const adversarial = `${'a1-'.repeat(3000)}!`;
    const { value, cpuMs } = withCpuTime(() => ({
      bound: bindInputs(
        { x: { type: 'string', required: true, secret: false, pattern: '^([a-z0-9]+-?)+$' } },
        { x: adversarial },
      ),
      matched: evaluateExpression("x.matches('^(a|a)*$')", { x: `${'a'.repeat(10000)}b` }),
    }));
    expect(value.bound.ok).toBe(false);
    expect(value.matched).toBe(false);
    expect(cpuMs).toBeLessThan(5000);
    expect(evaluateExpression("'orders-1'.matches('^[a-z]+-[0-9]$')", {})).toBe(true);
  });

  it('bounds length and nesting with stable codes', () => {
    expect(checkExpression('x'.repeat(4001))).toMatchObject({ ok: false, limit: 'EXPRESSION_TOO_LONG' });
    expect(checkExpression(`${'['.repeat(60)}${']'.repeat(60)}`)).toMatchObject({
      ok: false,
      limit: 'EXPRESSION_TOO_DEEP',
    });
    const doubling = Array.from({ length: 30 }, (_, i) => `cel.bind(v${i + 1}, v${i} + v${i}, `).join('');
    expect(checkExpression(`${doubling}v30${')'.repeat(30)}`)).toMatchObject({
      ok: false,
      limit: 'EXPRESSION_TOO_COSTLY',
    });
    expect(() => evaluateExpression(`${doubling}v30${')'.repeat(30)}`, { v0: 'a' })).toThrow(/too much work/);
  });
});

describe('child outputs typed from the child declarations', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tideline-child-types-'));
    writeFileSync(
      join(dir, 'child.yaml'),
      [
        'apiVersion: tideline/v1',
        'name: child',
        'description: Outputs of every known kind.',
        'inputs:',
        '  n: { type: integer, default: 1 }',
        '  flag: { type: boolean, default: true }',
        'steps:',
        '  - { id: s, sleep: 1s }',
        'outputs:',
        "  count: '${{ inputs.n }}'",
        "  enabled: '${{ inputs.flag }}'",
        "  label: 'x-${{ inputs.n }}'",
        '  plain: just text',
        '  yes: { value: true }',
        "  sum: '${{ inputs.n + 1 }}'",
        '  number: { value: 3 }',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const parent = (lines: string[]): string[] => {
    const file = join(dir, 'parent.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: tideline/v1',
        'name: parent',
        'description: Reads the child outputs.',
        'steps:',
        '  - { id: c, runbook: child.yaml }',
        ...lines,
        '',
      ].join('\n'),
    );
    return checkRunbookFile(file).problems.map((p) => `${p.line}:${p.column} ${p.rule}: ${p.message}`);
  };

  it.each([
    [
      "if: '${{ steps.c.output.label }}'",
      '6:18 condition-type: `steps.c.output.label` gives string, but a condition must be true or false',
    ],
    [
      "if: '${{ steps.c.output.plain }}'",
      '6:18 condition-type: `steps.c.output.plain` gives string, but a condition must be true or false',
    ],
    [
      "if: '${{ steps.c.output.count }}'",
      '6:18 condition-type: `steps.c.output.count` gives int, but a condition must be true or false',
    ],
    [
      'if: "${{ steps.c.output.count > \'two\' }}"',
      "6:18 expression-type: `steps.c.output.count > 'two'`: cannot apply int > string",
    ],
    [
      "if: '${{ steps.c.output.enabled.x }}'",
      '6:18 expression-type: `steps.c.output.enabled.x`: `steps.c.output.enabled` is a bool, which has no fields',
    ],
  ])('%s', (condition, expected) => {
    expect(parent([`  - { id: a, ${condition}, sleep: 1s }`])).toEqual([expected]);
  });

  it('accepts sound uses; values that cannot be known stay dyn', () => {
    expect(
      parent([
        '  - { id: a, if: "${{ steps.c.output.enabled && steps.c.output.yes && steps.c.output.count > 0 && steps.c.output.label != \'\' }}", sleep: 1s }',
        "  - { id: b, if: '${{ steps.c.output.sum }}', sleep: 1s }",
        "  - { id: d, if: '${{ steps.c.output.number > 1.5 }}', sleep: 1s }",
      ]),
    ).toEqual([]);
  });
});

describe('answer fields renamed by the API', () => {
  it.each([
    ['vpc_endpoint', 'vpcEndpoint'],
    ['vpcEndpoint', 'vpc_endpoint'],
  ])('a wait reading %s validates, as does one reading %s', (name) => {
    expect(
      problems([...WAIT, `    until: "\${{ has(result.${name}) && result.${name}.vpc_id == 'v' }}"`]),
    ).toEqual([]);
  });

  it('a logs step’s cursor can be read under either name', () => {
    const logs = ['  - id: page', '    call: service.logs', '    with: { project_id: p, service_id: s }'];
    const read = (name: string) => ['  - id: next', `    assert: "\${{ steps.page.output.${name} != '' }}"`];
    expect(problems([...logs, ...read('last_cursor')])).toEqual([]);
    expect(problems([...logs, ...read('lastCursor')])).toEqual([]);
  });

  it('a misspelt renamed field is still reported', () => {
    expect(problems([...WAIT, "    until: '${{ has(result.vpc_endpoints) }}'"]).join('\n')).toContain(
      'vpc_endpoints',
    );
  });
});

describe('values named differently by the two dialects', () => {
  const filter = (condition: string) => [
    '  - id: a',
    `    assert: "\${{ steps.list.output.exists(s, ${condition}) }}"`,
  ];

  it('a time-series type compared under one name only is reported, with both names in the hint', () => {
    expect(problems(filter("s.service_type == 'NEUTRALDB'"))).toEqual([
      "16:13 dialect-value: `NEUTRALDB` is named `TIMESCALEDB` by the other dialect of the Cloud API, so this expression misses those services there | compare with every name, e.g. s.service_type in ['NEUTRALDB', 'TIMESCALEDB']",
    ]);
    expect(problems(filter("s.service_type == 'TIMESCALEDB'")).join('\n')).toContain('`NEUTRALDB`');
  });

  it('both names, or other values, are fine', () => {
    expect(problems(filter("s.service_type in ['TIMESCALEDB', 'NEUTRALDB']"))).toEqual([]);
    expect(problems(filter("s.service_type == 'POSTGRES'"))).toEqual([]);
  });
});
