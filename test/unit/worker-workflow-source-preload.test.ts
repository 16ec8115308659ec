// The modules every workflow run shares (workflowPreloadModules()): the sandbox's stack-trace limit,
// then the runbook language. The SDK loads them once per worker and deep-freezes what they export,
// so they must keep working with frozen exports and must not carry one run's data into another.
import { stackTraceLimitModule, workflowPreloadModules } from '../../worker/workflow-source';

/** What the SDK's reusable V8 context does to a shared module's exports. */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object') {
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<string | symbol, unknown>)[key], seen);
      } catch {
        // Some objects cannot be frozen (typed arrays); the SDK skips them too.
      }
    }
  }
  Object.freeze(value);
}

type Templates = typeof import('../../dsl/templates');
type Inputs = typeof import('../../dsl/inputs');
type Expressions = typeof import('../../dsl/expressions');

/** The shared runbook-language modules: all preloaded modules but the first, the stack-trace limit. */
function languageModules(): string[] {
  return workflowPreloadModules().filter((file) => file !== stackTraceLimitModule());
}

function loadFrozen(): { templates: Templates; inputs: Inputs; expressions: Expressions } {
  let loaded: { templates: Templates; inputs: Inputs; expressions: Expressions } | undefined;
  // Fresh copies, loaded synchronously inside the isolated registry: only require() does that.
  /* eslint-disable @typescript-eslint/no-require-imports */
  jest.isolateModules(() => {
    // Not the stack-trace limit: it would shorten this test file's own stack traces.
    for (const file of languageModules()) deepFreeze(require(file));
    loaded = {
      templates: require('../../dsl/templates') as Templates,
      inputs: require('../../dsl/inputs') as Inputs,
      expressions: require('../../dsl/expressions') as Expressions,
    };
  });
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (loaded === undefined) throw new Error('modules did not load');
  return loaded;
}

describe('modules shared by every workflow run', () => {
  it('are the stack-trace limit first, then the runbook language the interpreter imports, as files', () => {
    const [first, ...language] = workflowPreloadModules();
    expect(first).toBe(stackTraceLimitModule());
    expect(first).toMatch(/[\\/]workflows[\\/]stack-trace-limit\.(ts|js)$/);
    expect(language.length).toBeGreaterThan(0);
    for (const file of language) expect(file).toMatch(/[\\/]dsl[\\/][a-z-]+\.(ts|js)$/);
    expect(workflowPreloadModules().some((file) => /[\\/]expressions\.(ts|js)$/.test(file))).toBe(true);
  });

  it('bind, resolve and evaluate with their exports frozen, and keep runs apart', () => {
    const { templates, inputs, expressions } = loadFrozen();
    const bound = inputs.bindInputs(
      {
        n: { type: 'integer', description: 'n', required: true, secret: false },
        name: { type: 'string', description: 'name', pattern: '^[a-z]+$', required: true, secret: false },
      },
      { n: 21, name: 'alpha' },
    );
    expect(bound.ok).toBe(true);
    if (!bound.ok) return;
    const withBlock = {
      doubled: '${{ inputs.n * 2 }}',
      label: 'svc-${{ inputs.name }}',
      matches: "${{ inputs.name.matches('^al') }}",
    };
    const first = templates.resolveTemplates(withBlock, { inputs: bound.values, steps: {}, vars: {} });
    expect(first).toEqual({ doubled: 42, label: 'svc-alpha', matches: true });
    // A second run with other data through the same (cached, shared) parsed expressions.
    const second = templates.resolveTemplates(withBlock, {
      inputs: { n: 1, name: 'beta' },
      steps: {},
      vars: {},
    });
    expect(second).toEqual({ doubled: 2, label: 'svc-beta', matches: false });
    expect(expressions.evaluateCondition("result.status == 'READY'", { result: { status: 'READY' } })).toBe(
      true,
    );
    expect(() => expressions.evaluateExpression('inputs.n +', { inputs: { n: 1 } })).toThrow(
      expressions.ExpressionError,
    );
  });
});
