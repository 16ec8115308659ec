// Binding run inputs: defaults, command-line text converted to the declared types, and checks.
import type { InputDefinition } from '../../dsl/definition';
import { bindInputs } from '../../dsl/inputs';

const declared: Record<string, InputDefinition> = {
  name: { type: 'string', required: true, secret: false, pattern: '^[a-z]+$', min: 3, max: 10 },
  count: { type: 'integer', required: false, secret: false, default: 2, min: 1, max: 5 },
  ratio: { type: 'number', required: false, secret: false, default: 0.5 },
  on: { type: 'boolean', required: false, secret: false, default: false },
  env: { type: 'enum', required: false, secret: false, values: ['DEV', 'PROD'], default: 'DEV' },
  wait: { type: 'duration', required: false, secret: false, default: '5m', min: 1_000, max: 3_600_000 },
  tags: { type: 'list', required: false, secret: false, default: [] },
  labels: { type: 'map', required: false, secret: false, default: {} },
  token: { type: 'string', required: false, secret: true },
};

describe('bindInputs', () => {
  it('fills defaults and reads optional inputs without a default as null', () => {
    expect(bindInputs(declared, { name: 'orders' })).toEqual({
      ok: true,
      values: {
        name: 'orders',
        count: 2,
        ratio: 0.5,
        on: false,
        env: 'DEV',
        wait: '5m',
        tags: [],
        labels: {},
        token: null,
      },
    });
  });

  it('converts command-line text to the declared types', () => {
    const bound = bindInputs(declared, {
      name: 'orders',
      count: '4',
      ratio: '1.5',
      on: 'true',
      env: 'PROD',
      wait: '90s',
      tags: 'a, b',
      labels: '{"team":"db"}',
      token: 'secret-value',
    });
    expect(bound).toEqual({
      ok: true,
      values: {
        name: 'orders',
        count: 4,
        ratio: 1.5,
        on: true,
        env: 'PROD',
        wait: '90s',
        tags: ['a', 'b'],
        labels: { team: 'db' },
        token: 'secret-value',
      },
    });
    expect(bindInputs(declared, { name: 'orders', tags: '["x", 1]' })).toMatchObject({
      ok: true,
      values: { tags: ['x', 1] },
    });
  });

  it('reports every problem by input name, never quoting values', () => {
    const bound = bindInputs(declared, {
      count: '4.5',
      on: 'yes',
      env: 'STAGING',
      wait: '2h',
      labels: '[1]',
      extra: 1,
      token: 42,
    });
    expect(bound.ok).toBe(false);
    const problems = bound.ok ? [] : bound.problems;
    expect(problems.map((p) => p.message)).toEqual([
      'unknown input `extra`',
      'input `name` is required',
      'input `count` must be an integer',
      'input `on` must be true or false',
      'input `env` must be one of DEV, PROD',
      'input `wait` must be at most 3600000 ms',
      'input `labels` must be a map',
      'input `token` must be a string',
    ]);
    expect(JSON.stringify(problems)).not.toContain('STAGING');
  });

  it('checks pattern and length of strings and bounds of numbers', () => {
    const messages = (given: Record<string, unknown>) => {
      const bound = bindInputs(declared, given);
      return bound.ok ? [] : bound.problems.map((p) => p.message);
    };
    expect(messages({ name: 'Orders' })).toEqual(['input `name` must match the pattern ^[a-z]+$']);
    expect(messages({ name: 'ab' })).toEqual(['input `name` must be at least 3 characters']);
    expect(messages({ name: 'orders', count: 9 })).toEqual(['input `count` must be at most 5']);
    expect(messages({ name: 'orders', count: '0' })).toEqual(['input `count` must be at least 1']);
  });
});
