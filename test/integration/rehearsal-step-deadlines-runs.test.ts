// A case's deadline follows the runbook's own: a copy of provision-production-service.yaml whose
// compensation stops the service instead of deleting it leaves `service_gone` waiting for a
// deletion that never comes. The shipped rollback cases catch it once that wait is past its 30m
// timeout on the case's clock — not at the flat case timeout — and name what the run failed
// to do: the delete never called, the service still there, the run still compensating.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadSuite, runSuite } from '../../rehearsal/run-suite';
import { REPO_ROOT } from '../helpers/worker-process';

const RUNBOOK = 'provision-production-service.yaml';
const FLAT_TIMEOUT_MS = 120_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-deadlines-'));
  const original = readFileSync(path.join(REPO_ROOT, 'runbooks', RUNBOOK), 'utf8');
  const stopping = original.replace('call: service.delete', 'call: service.stop');
  expect(stopping).not.toBe(original);
  writeFileSync(path.join(dir, RUNBOOK), stopping);
  copyFileSync(
    path.join(REPO_ROOT, 'runbooks', 'provision-production-service.test.yaml'),
    path.join(dir, 'provision-production-service.test.yaml'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a compensation that stops instead of deleting fails the rollback cases at the wait’s deadline, naming the unmet expectations', async () => {
  const suite = loadSuite([dir], dir, 'delete');
  if (!suite.ok) throw new Error(JSON.stringify(suite.problems));
  expect(suite.cases.map((c) => c.name)).toEqual([
    'a pooler that keeps failing rolls back and deletes the service it created',
    'held at the pooler and rolled back by the operator, the service is deleted',
  ]);
  const results = await runSuite(suite.cases, {
    env: process.env,
    jobs: 2,
    timeoutMs: FLAT_TIMEOUT_MS,
    log: () => undefined,
    onResult: () => undefined,
  });
  for (const result of results) {
    expect(result.passed).toBe(false);
    // The wait's own deadline on the case's clock ended the case: the flat timeout says "did not
    // end within 120s" instead.
    expect(result.error).toEqual({
      code: 'TEST_CASE_TIMEOUT',
      message: expect.stringMatching(
        /^step create\/undo\.service_gone ran past its timeout of 30m on the case's clock/,
      ),
    });
    const service = result.name.startsWith('held') ? 'dropped' : 'doomed';
    expect(result.mismatches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ what: 'status', expected: 'failed', actual: 'compensating' }),
        expect.objectContaining({ what: 'calls.service.delete', expected: 1, actual: 0 }),
        expect.objectContaining({
          what: `cloud.services.${service}`,
          expected: 'absent',
          actual: expect.stringMatching(/^PAUSED /),
        }),
      ]),
    );
  }
}, 240_000);
