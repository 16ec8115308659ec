// A foreach over `targets`: it normalises to a service.list step plus a CEL filter the interpreter
// already runs (format 2), the filter picks exactly the services the selector describes from a
// listing like the Cloud API's, and bad selectors get problems with rules and positions.
import { stringify } from 'yaml';
import type { ForeachStepDefinition, RunbookDefinition } from '../../dsl/definition';
import { evaluateExpression, type JsonValue } from '../../dsl/expressions';
import { escapeGlob, globMatches, globTest } from '../../dsl/glob';
import { checkRunbookText, loadRunbookText } from '../../dsl/loader';
import { formatProblem } from '../../dsl/problems';

function doc(targets: unknown, extra: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'tideline/v1',
    name: 'fleet',
    description: 'A fleet case.',
    inputs: {
      project_id: { type: 'string' },
      prefix: { type: 'string', default: 'dev' },
      env: { type: 'enum', values: ['DEV', 'PROD'], default: 'DEV' },
      parent: { type: 'string', default: 'p1' },
    },
    steps: [
      {
        id: 'each',
        foreach: { targets },
        as: 'service',
        steps: [
          {
            id: 'stop',
            call: 'service.stop',
            with: { project_id: 'x', service_id: '${{ service.service_id }}' },
          },
        ],
      },
    ],
    ...extra,
  });
}

const load = (targets: unknown): RunbookDefinition => loadRunbookText(doc(targets), 'fleet.yaml');

/** A listing in the Cloud API's shape, absent fields included. */
const LISTING: JsonValue[] = [
  {
    service_id: 'a',
    name: 'dev-api',
    status: 'READY',
    region_code: 'us-east-1',
    metadata: { environment: 'DEV' },
  },
  {
    service_id: 'b',
    name: 'dev-db',
    status: 'PAUSED',
    region_code: 'eu-west-1',
    metadata: { environment: 'DEV' },
  },
  {
    service_id: 'c',
    name: 'prod-api',
    status: 'READY',
    region_code: 'us-east-1',
    metadata: { environment: 'PROD' },
    read_replica_sets: [{ id: 'r' }],
  },
  {
    service_id: 'd',
    name: 'dev-api-fork',
    status: 'READY',
    region_code: 'us-east-1',
    metadata: { environment: 'DEV' },
    forked_from: { is_standby: false, service_id: 'a' },
  },
  {
    service_id: 'e',
    name: 'prod-api-replica',
    status: 'READY',
    forked_from: { is_standby: true, service_id: 'c' },
  },
  { service_id: 'f', name: 'dev.x', read_replica_sets: [] },
  { service_id: 'g' },
];

/** The ids the foreach of a definition picks from LISTING, with the given inputs. */
function picked(definition: RunbookDefinition, inputs: Record<string, JsonValue> = {}): string[] {
  const foreach = definition.steps.find((step): step is ForeachStepDefinition => step.kind === 'foreach');
  if (foreach?.targets === undefined) throw new Error('no targets foreach');
  const scope = {
    inputs: { project_id: 'p', prefix: 'dev', env: 'DEV', parent: 'p1', ...inputs },
    steps: { [foreach.targets.listStepId]: { output: LISTING, status: 'done' } },
  };
  const items = evaluateExpression(foreach.items, scope) as { service_id: string }[];
  return items.map((item) => item.service_id);
}

describe('foreach targets: normalisation', () => {
  it('puts a service.list step before the foreach and marks the definition format 2', () => {
    const definition = load({ project_id: '${{ inputs.project_id }}', environment: 'DEV' });
    expect(definition.formatVersion).toBe(2);
    expect(definition.steps.map((step) => [step.kind, step.id])).toEqual([
      ['call', 'each-targets'],
      ['foreach', 'each'],
    ]);
    expect(definition.steps[0]).toMatchObject({
      action: 'service.list',
      actionKind: 'read',
      with: { project_id: '${{ inputs.project_id }}' },
      compensate: [],
    });
    expect(definition.steps[1]).toMatchObject({
      as: 'service',
      targets: { listStepId: 'each-targets', project_id: '${{ inputs.project_id }}', environment: ['DEV'] },
    });
  });

  it('gives the list step the foreach condition and failure policy', () => {
    const text = doc({ project_id: 'p' }).replace(
      'id: each\n',
      "id: each\n    if: ${{ inputs.env == 'DEV' }}\n    continueOnError: true\n",
    );
    const [list] = loadRunbookText(text, 'fleet.yaml').steps;
    expect(list).toMatchObject({ if: "inputs.env == 'DEV'", continueOnError: true });
  });

  it('keeps a foreach over CEL as it was (format 1, no extra step)', () => {
    const text = doc({ project_id: 'p' }).replace(
      /foreach:\n\s+targets:\n\s+project_id: p\n/,
      "foreach: \"${{ [{'service_id': 'x'}] }}\"\n",
    );
    const definition = loadRunbookText(text, 'fleet.yaml');
    expect(definition.formatVersion).toBe(1);
    expect(definition.steps.map((step) => step.id)).toEqual(['each']);
    expect(definition.steps[0]).not.toHaveProperty('targets');
  });
});

describe('foreach targets: selection', () => {
  it.each([
    [{}, ['a', 'b', 'c', 'd', 'e', 'f', 'g']],
    [{ name: 'dev-*' }, ['a', 'b', 'd']],
    [{ name: ['dev-???', 'prod-*'] }, ['a', 'c', 'e']],
    [{ name: '*-api' }, ['a', 'c']],
    [{ name: 'dev.?' }, ['f']],
    [{ name: 'dev-api' }, ['a']],
    [{ name: '*api*' }, ['a', 'c', 'd', 'e']],
    [{ environment: 'DEV' }, ['a', 'b', 'd']],
    [{ status: ['READY', 'PAUSED'], environment: 'DEV' }, ['a', 'b', 'd']],
    [{ status: 'PAUSED' }, ['b']],
    [{ region: 'us-east-1' }, ['a', 'c', 'd']],
    [{ region: ['eu-west-1', 'ap-south-1'] }, ['b']],
    [{ role: 'primary' }, ['a', 'b', 'c', 'f', 'g']],
    [{ role: 'fork' }, ['d']],
    [{ role: ['fork', 'replica'] }, ['d', 'e']],
    [{ forkOf: 'a' }, ['d']],
    [{ forkOf: 'c' }, []],
    [{ replicaOf: 'c' }, ['e']],
    [{ hasReadReplicas: true }, ['c']],
    [{ hasReadReplicas: false, environment: 'PROD' }, []],
    [{ environment: 'DEV', status: 'READY', region: 'us-east-1', role: 'primary', name: 'dev-*' }, ['a']],
  ])('%j selects %j', (selector, expected) => {
    expect(picked(load({ project_id: 'p', ...selector }))).toEqual(expected);
  });

  it('reads values of ${{ … }} from the inputs, literally inside name patterns', () => {
    const definition = load({
      project_id: '${{ inputs.project_id }}',
      name: '${{ inputs.prefix }}-*',
      environment: '${{ inputs.env }}',
      forkOf: '${{ inputs.parent }}',
    });
    expect(picked(definition, { parent: 'a' })).toEqual(['d']);
    expect(picked(definition, { parent: 'a', prefix: 'prod' })).toEqual([]);
    // `*` from an input is a character, not a wildcard.
    expect(picked(load({ project_id: 'p', name: '${{ inputs.prefix }}*' }), { prefix: '*' })).toEqual([]);
    expect(picked(load({ project_id: 'p', name: 'dev${{ inputs.prefix }}?' }), { prefix: '.' })).toEqual([
      'f',
    ]);
    expect(picked(load({ project_id: 'p', name: '*${{ inputs.prefix }}*' }), { prefix: '\\E.' })).toEqual([]);
  });

  it('keeps the generated filter within the expression limits with every field used', () => {
    const definition = load({
      project_id: 'p',
      name: Array.from({ length: 16 }, (_, index) => `${'${{ inputs.prefix }}'}-${index}-*?`),
      environment: ['DEV', '${{ inputs.env }}'],
      status: ['READY', 'PAUSED', 'CONFIGURING'],
      region: ['us-east-1', 'eu-west-1'],
      forkOf: '${{ inputs.parent }}',
      role: ['fork', 'primary'],
      hasReadReplicas: false,
    });
    expect(picked(definition)).toEqual([]);
  });
});

describe('glob patterns', () => {
  it.each([
    ['dev-*', 'dev-', true],
    ['dev-*', 'dev', false],
    ['d?v', 'dev', true],
    ['d?v', 'dv', false],
    ['*', '', true],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbY', false],
    ['a.b', 'aXb', false],
    ['(x)', '(x)', true],
    // Escapes: \\* \\? \\\\ match themselves; a \\ before anything else is itself.
    ['web\\*', 'web*', true],
    ['web\\*', 'web-1', false],
    ['\\*-api', '*-api', true],
    ['\\*-api', 'x-api', false],
    ['a\\?', 'a?', true],
    ['a\\?', 'ab', false],
    ['a\\\\*', 'a\\xyz', true],
    ['a\\b', 'a\\b', true],
    [escapeGlob('we?b*\\x'), 'we?b*\\x', true],
    [escapeGlob('we?b*\\x'), 'weXb-1\\x', false],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(globMatches(pattern, name)).toBe(expected);
    const test = globTest(pattern);
    const cel = test.test('name', test.operand);
    expect(evaluateExpression(cel, { name })).toBe(expected);
  });

  it('uses == and startsWith where they say it', () => {
    const test = (pattern: string) => {
      const glob = globTest(pattern);
      return glob.test('n', glob.operand);
    };
    expect(test('dev')).toBe('n == "dev"');
    expect(test('dev-*')).toBe('n.startsWith("dev-")');
    expect(test('*-api')).toBe('n.endsWith("-api")');
    expect(test('${{ inputs.p }}*')).toBe('n.startsWith(string(inputs.p))');
    expect(test('d.v(?)-*')).toBe('n.matches("^d\\\\.v\\\\(.\\\\)-.*$")');
    expect(test('d?v-*')).toBe('n.matches("^d.v-.*$")');
    expect(test('web\\*')).toBe('n == "web*"');
    expect(test('web\\**')).toBe('n.startsWith("web*")');
    expect(test('*\\?')).toBe('n.endsWith("?")');
  });
});

describe('foreach targets: validation', () => {
  const problems = (targets: unknown, extra: Record<string, unknown> = {}) =>
    checkRunbookText(doc(targets, extra), 'fleet.yaml').problems.map(
      (problem) => `${problem.line}:${problem.column} ${problem.rule}: ${problem.message}`,
    );

  it('reports unknown fields and a missing project where they are', () => {
    expect(problems({ project_id: 'p', envirnoment: 'DEV' })).toEqual([
      expect.stringMatching(/^\d+:\d+ schema: .*envirnoment/),
    ]);
    expect(problems({ name: 'dev-*' })).toEqual([expect.stringMatching(/^\d+:\d+ schema: .*project_id/)]);
    const hints = (targets: unknown) =>
      checkRunbookText(doc(targets), 'fleet.yaml').problems.map((problem) => problem.hint);
    expect(hints({ project_id: 'p', envirnoment: 'DEV' })).toEqual(['did you mean `environment`?']);
    const misspelt = doc({ project_id: 'p' }).replace('targets:', 'target:');
    expect(
      checkRunbookText(misspelt, 'fleet.yaml').problems.map((problem) => [problem.message, problem.hint]),
    ).toEqual([
      ['missing required field `targets`', undefined],
      ['unknown field `target`', 'did you mean `targets`?'],
    ]);
  });

  it('reports bad patterns, statuses, environments and contradicting relations', () => {
    const found = problems({
      project_id: 'p',
      name: ['ok-*', ''],
      status: ['READY', 'PASUED'],
      environment: 'dev-${{ inputs.env }}',
      forkOf: 'a',
      replicaOf: 'b',
      role: 'primary',
    });
    expect(found).toEqual([
      '26:13 foreach-targets: bad name pattern: the pattern is empty; leave `name` out to select every name',
      '29:13 foreach-targets: `PASUED` is not a service status',
      '30:22 foreach-targets: `environment` mixes text and ${{ … }}; write one of DEV, PROD or one ${{ … }}',
      '32:20 foreach-targets: a service is either a fork or a read replica: `forkOf` and `replicaOf` together select nothing',
      '33:15 foreach-targets: `forkOf` selects services of role fork, but `role` leaves fork out',
      '33:15 foreach-targets: `replicaOf` selects services of role replica, but `role` leaves replica out',
    ]);
    const hints = checkRunbookText(doc({ project_id: 'p', status: 'PASUED' }), 'f.yaml').problems.map(
      formatProblem,
    );
    expect(hints.join('\n')).toContain('hint: did you mean PAUSED?');
  });

  it('checks the references of ${{ … }} in the selector', () => {
    expect(problems({ project_id: '${{ inputs.projetc }}' })).toEqual([
      expect.stringMatching(/^\d+:\d+ unknown-input: /),
    ]);
  });

  it('types the loop variable as a listed service', () => {
    const text = doc({ project_id: 'p' }).replace('${{ service.service_id }}', '${{ service.servce_id }}');
    const found = checkRunbookText(text, 'fleet.yaml').problems;
    expect(found.map((problem) => problem.rule)).toEqual(['expression-type']);
    expect(found[0]?.message).toContain('servce_id');
  });

  it('refuses a written step that takes the id of the generated list step', () => {
    const text = doc({ project_id: 'p' }).replace('- id: stop', '- id: each-targets');
    const found = checkRunbookText(text, 'fleet.yaml').problems;
    expect(found.map((problem) => problem.rule)).toEqual(['foreach-targets']);
  });
});
