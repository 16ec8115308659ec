import path from 'node:path';
import { loadRunbookFile } from '../../dsl/loader';
import { lockKeys } from '../../workflows/locks';

const runbook = (name: string) =>
  loadRunbookFile(path.resolve(__dirname, '..', '..', 'runbooks', `${name}.yaml`));

describe('lock keys', () => {
  test('a runbook that changes a service named by its inputs locks that service', () => {
    expect(
      lockKeys(runbook('resize-with-rollback'), { project_id: 'p1', service_id: 's1', cpu_millis: '2000' }),
    ).toEqual(['service/p1/s1']);
  });

  test('a runbook that only changes the service it creates locks nothing', () => {
    expect(
      lockKeys(runbook('provision-production-service'), { project_id: 'p1', name: 'x', vpc_id: '1' }),
    ).toEqual([]);
  });

  test('fork-and-promote locks the parent it demotes', () => {
    expect(lockKeys(runbook('fork-and-promote'), { project_id: 'p1', service_id: 'par' })).toEqual([
      'service/p1/par',
    ]);
  });
});
