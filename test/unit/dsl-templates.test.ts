// Templates and CEL typing: a whole-string `${{ … }}` keeps the expression's type, embedded ones
// become text; templates resolve through nested lists and maps; references are found statically.
import { expressionReferences } from '../../dsl/expression-references';
import { ExpressionError, checkExpression, evaluateCondition } from '../../dsl/expressions';
import {
  conditionExpression,
  findTemplates,
  isWholeTemplate,
  listReferences,
  parseTemplate,
  referencedStepIds,
  resolveCount,
  resolveDurationMs,
  resolveTemplates,
} from '../../dsl/templates';

const scope = {
  inputs: {
    name: 'orders',
    n: 3,
    ratio: 0.5,
    on: true,
    tags: ['a', 'b'],
    labels: { team: 'db' },
    none: null,
  },
  steps: {
    create: {
      output: {
        service_id: 'abc123',
        ha_replicas: { replica_count: 2 },
        resources: [{ spec: { cpu_millis: 1000 } }],
      },
    },
  },
  result: { status: 'READY' },
  item: { service_id: 'x1' },
};

describe('whole-string templates keep their type', () => {
  it.each([
    ['${{ inputs.n }}', 3],
    ['${{ inputs.n * 2 }}', 6],
    ['${{ inputs.ratio }}', 0.5],
    ['${{ inputs.on }}', true],
    ['${{ inputs.tags }}', ['a', 'b']],
    ['${{ inputs.labels }}', { team: 'db' }],
    ['${{ inputs.none }}', null],
    ["${{ {'name': inputs.name, 'nodes': 1} }}", { name: 'orders', nodes: 1 }],
    ['${{ steps.create.output.resources[0].spec.cpu_millis }}', 1000],
    ['${{ string(steps.create.output.ha_replicas.replica_count) }}', '2'],
    ['${{ item.service_id }}', 'x1'],
  ])('%s → %j', (template, expected) => {
    expect(resolveTemplates(template, scope)).toEqual(expected);
  });
});

describe('embedded templates become text', () => {
  it.each([
    ['svc-${{ inputs.name }}', 'svc-orders'],
    ['n=${{ inputs.n }}, on=${{ inputs.on }}', 'n=3, on=true'],
    ['tags ${{ inputs.tags }}', 'tags ["a","b"]'],
    ['none: ${{ inputs.none }}', 'none: null'],
    [' ${{ inputs.n }}', ' 3'],
    ['no template here', 'no template here'],
  ])('%s → %j', (template, expected) => {
    expect(resolveTemplates(template, scope)).toBe(expected);
  });
});

describe('resolveTemplates', () => {
  it('walks nested lists and maps and leaves other values alone', () => {
    const value = {
      project_id: 'p',
      service_id: '${{ steps.create.output.service_id }}',
      replica_count: '${{ steps.create.output.ha_replicas.replica_count }}',
      addons: ['time-series', '${{ inputs.tags[1] }}'],
      nested: { flag: false, count: 7, label: 'for ${{ inputs.name }}' },
    };
    expect(resolveTemplates(value, scope)).toEqual({
      project_id: 'p',
      service_id: 'abc123',
      replica_count: 2,
      addons: ['time-series', 'b'],
      nested: { flag: false, count: 7, label: 'for orders' },
    });
  });

  it('reads map literals that contain }} correctly', () => {
    expect(resolveTemplates("${{ {'a': {'b': inputs.n}} }}", scope)).toEqual({ a: { b: 3 } });
  });

  it('fails with EXPRESSION_ERROR on unknown variables and unclosed templates', () => {
    expect(() => resolveTemplates('${{ nope.x }}', scope)).toThrow(ExpressionError);
    expect(() => resolveTemplates('x ${{ inputs.n', scope)).toThrow(/without a closing/);
    try {
      resolveTemplates('${{ inputs.missing.deeper }}', scope);
      throw new Error('should have failed');
    } catch (error) {
      expect((error as ExpressionError).code).toBe('EXPRESSION_ERROR');
    }
  });
});

describe('template parsing', () => {
  it('splits text and expressions and tells whole from embedded', () => {
    expect(parseTemplate('a ${{ x }} b')).toEqual({
      whole: false,
      parts: [
        { kind: 'text', text: 'a ' },
        { kind: 'expression', expression: 'x', start: 2, end: 10 },
        { kind: 'text', text: ' b' },
      ],
    });
    expect(isWholeTemplate('${{ x }}')).toBe(true);
    expect(isWholeTemplate(' ${{ x }}')).toBe(false);
    expect(isWholeTemplate('${{ x }}${{ y }}')).toBe(false);
  });

  it('turns conditions written either way into bare CEL', () => {
    expect(conditionExpression("${{ result.status == 'READY' }}")).toBe("result.status == 'READY'");
    expect(conditionExpression("result.status == 'READY'")).toBe("result.status == 'READY'");
    expect(conditionExpression(false)).toBe('false');
    expect(() => conditionExpression('is ${{ x }}')).toThrow(/mixes text/);
  });

  it('finds every expression with the path of the string holding it', () => {
    const found = findTemplates(
      { a: ['${{ inputs.n }}', 'x'], b: { c: 'p ${{ steps.s.output }} ${{ item }}' }, d: 'x ${{ y' },
      ['with'],
    );
    expect(found.expressions).toEqual([
      { path: ['with', 'a', 0], expression: 'inputs.n', whole: true },
      { path: ['with', 'b', 'c'], expression: 'steps.s.output', whole: false },
      { path: ['with', 'b', 'c'], expression: 'item', whole: false },
    ]);
    expect(found.problems).toEqual([
      { path: ['with', 'd'], message: expect.stringContaining('without a closing') },
    ]);
  });
});

describe('durations and counts from templates', () => {
  it('resolves literal ms, duration strings and numbers', () => {
    expect(resolveDurationMs(1500, scope)).toBe(1500);
    expect(resolveDurationMs('${{ "1h30m" }}', scope)).toBe(5_400_000);
    expect(resolveDurationMs('${{ inputs.n * 1000 }}', scope)).toBe(3000);
    expect(() => resolveDurationMs('${{ inputs.name }}', scope)).toThrow(/not a duration/);
    expect(resolveCount('${{ inputs.n }}', scope)).toBe(3);
    expect(resolveCount(4, scope)).toBe(4);
    expect(() => resolveCount('${{ inputs.ratio }}', scope)).toThrow(/whole number/);
  });
});

describe('CEL checks and references', () => {
  it('type-checks with every variable dynamic', () => {
    expect(checkExpression("result.status in ['READY']")).toEqual({ ok: true, type: 'bool' });
    expect(checkExpression('inputs.n + 1')).toEqual({ ok: true, type: 'int' });
    expect(checkExpression("'a' + 1")).toMatchObject({ ok: false });
    expect(checkExpression('nosuch(1)')).toMatchObject({
      ok: false,
      message: expect.stringContaining('nosuch'),
    });
    expect(checkExpression('a +')).toMatchObject({
      ok: false,
      message: expect.stringContaining('cannot parse'),
    });
  });

  it('evaluates mixed list and map literals, as the checker allows them', () => {
    expect(resolveTemplates("${{ [inputs.n, 'x'] }}", scope)).toEqual([3, 'x']);
    expect(evaluateCondition("inputs.labels.team == 'db' && size(inputs.tags) == 2", scope)).toBe(true);
  });

  it('lists free variables with their static paths, not macro-bound ones', () => {
    const refs = (e: string) => expressionReferences(e).map((r) => [r.root, ...r.path].join('.'));
    expect(refs('steps.create.output.service_id')).toEqual(['steps.create.output.service_id']);
    expect(refs("steps['create'].output.resources[0].spec")).toEqual([
      'steps.create.output.resources.0.spec',
    ]);
    expect(refs('steps.list.output.filter(s, s.status == inputs.wanted)')).toEqual([
      'steps.list.output',
      'inputs.wanted',
    ]);
    expect(refs('cel.bind(x, inputs.a, x + y)')).toEqual(['inputs.a', 'y']);
    expect(refs('steps[inputs.which].output')).toEqual(['steps', 'inputs.which']);
    expect(refs('has(result.vpcEndpoint) && item.id == 1')).toEqual(['result.vpcEndpoint', 'item.id']);
  });

  it('lists the references of every expression in a value, and the steps it reads', () => {
    const value = {
      a: '${{ steps.create.output.service_id }}',
      b: ['x ${{ inputs.n + steps.list.output[0].n }}'],
    };
    expect(listReferences(value).map((e) => [e.path.join('.'), e.references.map((r) => r.root)])).toEqual([
      ['a', ['steps']],
      ['b.0', ['inputs', 'steps']],
    ]);
    expect(referencedStepIds(value)).toEqual(['create', 'list']);
    expect(() => listReferences({ a: '${{ x' })).toThrow(ExpressionError);
  });
});
