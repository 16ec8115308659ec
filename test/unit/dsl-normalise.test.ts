// Every step kind and field: a valid runbook parses to the expected normalised definition
// (durations in milliseconds, defaults filled, `kind` discriminant, bare CEL, children embedded).
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { StepDefinition } from '../../dsl/definition';
import { loadRunbookFile, loadRunbookText } from '../../dsl/loader';

const HERE = join('test', 'fixtures', 'runbooks', 'valid', 'parent.yaml');
const INPUTS = {
  project_id: { type: 'string' },
  n: { type: 'integer', default: 2 },
  pause: { type: 'duration', default: '5m' },
  names: { type: 'list', default: ['a', 'b'] },
};

function load(steps: unknown[], extra: Record<string, unknown> = {}) {
  const doc = {
    apiVersion: 'tideline/v1',
    name: 'table',
    description: 'A table case.',
    inputs: INPUTS,
    steps,
    ...extra,
  };
  return loadRunbookText(stringify(doc), HERE);
}

/** The fields every step has after normalisation, unless a case overrides them. */
const base = { compensate: [], continueOnError: false };
const get = {
  id: 'get',
  call: 'service.get',
  with: { project_id: '${{ inputs.project_id }}', service_id: 's1' },
};
const getDefinition: StepDefinition = {
  kind: 'call',
  id: 'get',
  action: 'service.get',
  actionKind: 'read',
  with: { project_id: '${{ inputs.project_id }}', service_id: 's1' },
  adopt: false,
  ...base,
};

const CASES: [string, unknown[], StepDefinition][] = [
  ['call, minimal', [get], getDefinition],
  [
    'call with every common field',
    [
      {
        id: 'create',
        name: 'Create',
        description: 'Makes a service.',
        if: '${{ inputs.n > 1 }}',
        timeout: '2m',
        retry: { attempts: 3, initialInterval: '2s', backoff: 1.5, maxInterval: '30s' },
        continueOnError: true,
        call: 'service.create',
        adopt: true,
        with: { project_id: 'p', name: 'orders', addons: ['time-series'], replica_count: 1 },
        compensate: {
          id: 'undo',
          call: 'service.delete',
          with: { project_id: 'p', service_id: '${{ steps.create.output.service_id }}' },
        },
      },
    ],
    {
      kind: 'call',
      id: 'create',
      name: 'Create',
      description: 'Makes a service.',
      if: 'inputs.n > 1',
      timeoutMs: 120_000,
      retry: { attempts: 3, initialIntervalMs: 2_000, backoff: 1.5, maxIntervalMs: 30_000 },
      continueOnError: true,
      action: 'service.create',
      actionKind: 'create',
      adopt: true,
      with: { project_id: 'p', name: 'orders', addons: ['time-series'], replica_count: 1 },
      compensate: [
        {
          kind: 'call',
          id: 'undo',
          action: 'service.delete',
          actionKind: 'delete',
          adopt: false,
          with: { project_id: 'p', service_id: '${{ steps.create.output.service_id }}' },
          ...base,
        },
      ],
    },
  ],
  [
    'retry defaults, bare-CEL and boolean conditions, templated timeout',
    [{ id: 'nap', sleep: '1s', if: 'inputs.n == 2', timeout: '${{ inputs.pause }}', retry: { attempts: 2 } }],
    {
      kind: 'sleep',
      id: 'nap',
      durationMs: 1_000,
      if: 'inputs.n == 2',
      timeoutMs: '${{ inputs.pause }}',
      retry: { attempts: 2, initialIntervalMs: 1_000, backoff: 2, maxIntervalMs: 60_000 },
      ...base,
    },
  ],
  [
    'if: true',
    [{ id: 'nap', sleep: '1h30m', if: true }],
    { kind: 'sleep', id: 'nap', durationMs: 5_400_000, if: 'true', ...base },
  ],
  [
    'sleep from a template',
    [{ id: 'nap', sleep: '${{ inputs.pause }}' }],
    { kind: 'sleep', id: 'nap', durationMs: '${{ inputs.pause }}', ...base },
  ],
  [
    'wait with defaults',
    [
      {
        id: 'ready',
        wait: 'service.get',
        with: { project_id: 'p', service_id: 's' },
        until: "${{ result.status == 'READY' }}",
      },
    ],
    {
      kind: 'wait',
      id: 'ready',
      action: 'service.get',
      with: { project_id: 'p', service_id: 's' },
      until: "result.status == 'READY'",
      untilDeleted: false,
      intervalMs: 1_000,
      maxIntervalMs: 15_000,
      timeoutMs: 1_800_000,
      ...base,
    },
  ],
  [
    'wait with every field',
    [
      {
        id: 'gone',
        wait: 'service.get',
        with: { project_id: 'p', service_id: 's' },
        failIf: "result.status == 'UNSTABLE'",
        untilDeleted: true,
        interval: '500ms',
        maxInterval: '10s',
        timeout: '10m',
      },
    ],
    {
      kind: 'wait',
      id: 'gone',
      action: 'service.get',
      with: { project_id: 'p', service_id: 's' },
      failIf: "result.status == 'UNSTABLE'",
      untilDeleted: true,
      intervalMs: 500,
      maxIntervalMs: 10_000,
      timeoutMs: 600_000,
      ...base,
    },
  ],
  [
    'approve, default reject',
    [{ id: 'ok', approve: 'Go?' }],
    { kind: 'approve', id: 'ok', message: 'Go?', default: 'reject', ...base },
  ],
  [
    'approve with timeout and default',
    [{ id: 'ok', approve: 'Go with ${{ inputs.n }}?', timeout: '1h', default: 'approve' }],
    {
      kind: 'approve',
      id: 'ok',
      message: 'Go with ${{ inputs.n }}?',
      timeoutMs: 3_600_000,
      default: 'approve',
      ...base,
    },
  ],
  [
    'assert with message',
    [{ id: 'check', assert: '${{ inputs.n < 3 }}', message: 'n is ${{ inputs.n }}' }],
    { kind: 'assert', id: 'check', condition: 'inputs.n < 3', message: 'n is ${{ inputs.n }}', ...base },
  ],
  [
    'assert without message',
    [{ id: 'check', assert: 'true' }],
    { kind: 'assert', id: 'check', condition: 'true', ...base },
  ],
  [
    'parallel',
    [
      {
        id: 'both',
        parallel: [
          { id: 'left', name: 'Left', steps: [get] },
          { id: 'right', steps: [{ id: 'nap', sleep: '1s' }] },
        ],
      },
    ],
    {
      kind: 'parallel',
      id: 'both',
      branches: [
        { id: 'left', name: 'Left', steps: [getDefinition] },
        { id: 'right', steps: [{ kind: 'sleep', id: 'nap', durationMs: 1_000, ...base }] },
      ],
      ...base,
    },
  ],
  [
    'foreach with defaults',
    [{ id: 'each', foreach: '${{ inputs.names }}', steps: [{ id: 'nap', sleep: '1s' }] }],
    {
      kind: 'foreach',
      id: 'each',
      items: 'inputs.names',
      as: 'item',
      concurrency: 1,
      steps: [{ kind: 'sleep', id: 'nap', durationMs: 1_000, ...base }],
      ...base,
    },
  ],
  [
    'foreach with as and templated concurrency',
    [
      {
        id: 'each',
        foreach: 'inputs.names',
        as: 'name',
        concurrency: '${{ inputs.n }}',
        steps: [{ id: 'say', fail: 'no ${{ name }}' }],
      },
    ],
    {
      kind: 'foreach',
      id: 'each',
      items: 'inputs.names',
      as: 'name',
      concurrency: '${{ inputs.n }}',
      steps: [{ kind: 'fail', id: 'say', message: 'no ${{ name }}', ...base }],
      ...base,
    },
  ],
  ['fail', [{ id: 'stop', fail: 'stopped' }], { kind: 'fail', id: 'stop', message: 'stopped', ...base }],
];

describe('normalised definition', () => {
  it.each(CASES)('%s', (_name, steps, expected) => {
    const definition = load(steps);
    expect(definition.steps[steps.length - 1]).toEqual(expected);
  });

  it('compensation lists keep their order', () => {
    const [step] = load([
      {
        id: 'a',
        sleep: '1s',
        compensate: [
          { id: 'b', sleep: '2s' },
          { id: 'c', sleep: '3s' },
        ],
      },
    ]).steps;
    expect(step?.compensate.map((s) => s.id)).toEqual(['b', 'c']);
  });

  it('embeds the child runbook of a runbook step', () => {
    const [step] = load([
      {
        id: 'child',
        runbook: 'child.yaml',
        with: { project_id: 'p', service_id: '${{ inputs.project_id }}' },
      },
    ]).steps;
    expect(step).toMatchObject({
      kind: 'runbook',
      id: 'child',
      path: 'child.yaml',
      with: { project_id: 'p', service_id: '${{ inputs.project_id }}' },
    });
    expect(step?.kind === 'runbook' && step.runbook).toEqual(
      loadRunbookFile(join('test', 'fixtures', 'runbooks', 'valid', 'child.yaml')),
    );
    expect(step?.kind === 'runbook' && step.runbook.steps[0]?.id).toBe('get');
  });

  it('fills input defaults and required flags, and converts duration bounds', () => {
    const definition = load([{ id: 'nap', sleep: '1s' }], {
      inputs: {
        a: { type: 'string', description: 'A.', pattern: '^x' },
        b: { type: 'integer', default: 3, min: 1, max: 5 },
        c: { type: 'duration', default: '5m', min: '1m', max: '1h' },
        d: { type: 'enum', values: ['x', 'y'], required: false },
        e: { type: 'string', secret: true },
      },
    });
    expect(definition.inputs).toEqual({
      a: { type: 'string', description: 'A.', pattern: '^x', required: true, secret: false },
      b: { type: 'integer', default: 3, min: 1, max: 5, required: false, secret: false },
      c: { type: 'duration', default: '5m', min: 60_000, max: 3_600_000, required: false, secret: false },
      d: { type: 'enum', values: ['x', 'y'], required: false, secret: false },
      e: { type: 'string', required: true, secret: true },
    });
  });

  it('normalises both output forms', () => {
    const definition = load([get], {
      outputs: {
        status: '${{ steps.get.output.status }}',
        host: { value: '${{ steps.get.output.endpoint.host }}', description: 'The host.' },
        both: { value: ['${{ steps.get.output.name }}', 1], secret: true },
      },
    });
    expect(definition.outputs).toEqual({
      status: { value: '${{ steps.get.output.status }}', secret: false },
      host: { value: '${{ steps.get.output.endpoint.host }}', secret: false, description: 'The host.' },
      both: { value: ['${{ steps.get.output.name }}', 1], secret: true },
    });
    expect(definition).toMatchObject({
      apiVersion: 'tideline/v1',
      name: 'table',
      description: 'A table case.',
    });
  });

  it('is plain JSON, so it travels through Temporal payloads unchanged', () => {
    const definition = load([
      { id: 'both', parallel: [{ id: 'left', steps: [get] }] },
      { id: 'child', runbook: 'child.yaml', with: { project_id: 'p', service_id: 's' } },
    ]);
    expect(JSON.parse(JSON.stringify(definition))).toEqual(definition);
  });
});

describe('format version', () => {
  const foreach = (extra: Record<string, unknown>) => ({
    id: 'each',
    foreach: '${{ inputs.names }}',
    ...extra,
    // Nested under a parallel branch: the format looks at every foreach, wherever it is.
    steps: [{ id: 'nap', sleep: '1s' }],
  });
  const nested = (extra: Record<string, unknown>) => [
    {
      id: 'par',
      parallel: [
        { id: 'left', steps: [foreach(extra)] },
        { id: 'right', steps: [{ id: 'other', sleep: '1s' }] },
      ],
    },
  ];

  it.each([
    ['a plain foreach', {}, 1],
    ['maxErrors', { maxErrors: 2 }, 2],
    ['a percentage budget with onMaxErrors', { maxErrors: '10%', onMaxErrors: 'cancel' }, 2],
    ['a ramp', { ramp: { start: 1 } }, 2],
    ['waves (concurrency follows them)', { waves: 5 }, 4],
  ])('%s → format %i (a format-1 worker refuses only what it would misread)', (_what, extra, format) => {
    expect(load(nested(extra)).formatVersion).toBe(format);
  });

  it('waves set the concurrency unless it is written', () => {
    const [par] = load(nested({ waves: 5 })).steps;
    const each = par?.kind === 'parallel' ? par.branches[0]?.steps[0] : undefined;
    expect(each).toMatchObject({ kind: 'foreach', waves: 5, concurrency: 5 });
    const [written] = load([foreach({ waves: 5, concurrency: 2 })]).steps;
    expect(written).toMatchObject({ kind: 'foreach', waves: 5, concurrency: 2 });
  });

  it.each([
    ['an approval without approvers', {}, 1],
    ['an approval with approvers', { approvers: ['alice', 'group:dba'], minApprovals: 2 }, 2],
  ])('%s → format %i (a format-1 worker would count unsigned approvals)', (_what, extra, format) => {
    // Inside a compensation: the format looks at every approval, wherever it is.
    const steps = [{ id: 'nap', sleep: '1s', compensate: [{ id: 'ok', approve: 'Undo?', ...extra }] }];
    expect(load(steps).formatVersion).toBe(format);
  });

  it('an approval with approvers keeps its defaults in the definition', () => {
    const [step] = load([{ id: 'ok', approve: 'Go?', approvers: ['alice'] }]).steps;
    expect(step).toMatchObject({
      kind: 'approve',
      approvers: ['alice'],
      minApprovals: 1,
      allowSelfApproval: true,
    });
    const [plain] = load([{ id: 'ok', approve: 'Go?' }]).steps;
    expect(plain).not.toHaveProperty('approvers');
    expect(plain).not.toHaveProperty('minApprovals');
  });

  it('every shipped runbook stays format 1', () => {
    for (const file of ['provision-production-service', 'fork-and-promote', 'stop-dev-services']) {
      const { formatVersion } = loadRunbookFile(join('runbooks', `${file}.yaml`));
      expect({ file, formatVersion }).toEqual({ file, formatVersion: 1 });
    }
  });
});
