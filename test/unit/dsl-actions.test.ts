// The action catalogue as the runbook language sees it, derived from cloud/operations.ts.
import { ACTION_NAMES } from '../../cloud/operations';
import { ACTION_CATALOGUE, checkOutputPath, isActionName } from '../../dsl/actions';

describe('action catalogue', () => {
  it('covers every operation', () => {
    expect(Object.keys(ACTION_CATALOGUE).sort()).toEqual([...ACTION_NAMES].sort());
    expect(isActionName('service.create')).toBe(true);
    expect(isActionName('service.craete')).toBe(false);
    expect(isActionName('toString')).toBe(false);
  });

  it('derives kinds, fields and required fields from the request schemas', () => {
    expect(ACTION_CATALOGUE['service.create']).toMatchObject({
      kind: 'create',
      requiredFields: ['project_id', 'name'],
      secretOutputFields: ['initial_password'],
      hasOutput: true,
    });
    expect(ACTION_CATALOGUE['service.create'].fields.map((f) => `${f.name}:${f.in}`)).toEqual([
      'project_id:path',
      'name:body',
      'addons:body',
      'region_code:body',
      'replica_count:body',
      'cpu_millis:body',
      'memory_gbs:body',
      'environment_tag:body',
    ]);
    expect(ACTION_CATALOGUE['service.resize'].requiredFields).toEqual([
      'project_id',
      'service_id',
      'cpu_millis',
      'memory_gbs',
    ]);
    expect(ACTION_CATALOGUE['service.updatePassword']).toMatchObject({
      secretInputFields: ['password'],
      hasOutput: false,
    });
    expect(
      ACTION_CATALOGUE['service.logs'].fields.filter((f) => f.in === 'query').map((f) => f.name),
    ).toEqual(['cursor', 'node', 'since', 'until', 'search', 'severities']);
    expect(ACTION_CATALOGUE['service.fork'].secretOutputFields).toEqual(['initial_password']);
    expect(ACTION_CATALOGUE['service.get'].kind).toBe('read');
    expect(ACTION_CATALOGUE['replicaSet.delete'].kind).toBe('delete');
  });

  it('checks field paths read from an action answer', () => {
    expect(checkOutputPath('service.get', ['vpcEndpoint', 'vpc_id'])).toBeUndefined();
    expect(checkOutputPath('service.get', ['resources', '0', 'spec', 'cpu_millis'])).toBeUndefined();
    expect(checkOutputPath('service.list', ['0', 'metadata', 'environment'])).toBeUndefined();
    expect(checkOutputPath('service.get', ['vpcEndpoint', 'vpcid'])).toMatchObject({
      index: 1,
      field: 'vpcid',
      known: ['host', 'port', 'vpc_id'],
    });
    expect(checkOutputPath('service.list', ['name'])).toMatchObject({ index: 0, field: 'name' });
    expect(checkOutputPath('service.delete', ['x'])).toMatchObject({ index: 0, known: [] });
    expect(checkOutputPath('service.delete', [])).toBeUndefined();
  });
});
