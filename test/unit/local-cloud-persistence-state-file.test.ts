// Group commit of the local cloud's state file (local-cloud/persistence.ts): waiting callers resolve
// only once the file holds their change, and many concurrent changes share a few commits instead
// of one fsync each.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStateFile } from '../../local-cloud/persistence';
import type { PersistedState } from '../../local-cloud/state';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tideline-durable-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function state(counter: number): PersistedState {
  return {
    version: 1,
    savedAt: new Date(0).toISOString(),
    idRandomState: counter,
    retiredIds: [],
    projects: [],
    vpcs: [],
    services: [],
  };
}

test('each waiter sees its change on disk; concurrent changes share commits', async () => {
  const path = join(dir, 'group.json');
  let counter = 0;
  let snapshots = 0;
  const file = new DurableStateFile(
    path,
    () => {
      snapshots++;
      return state(counter);
    },
    (error) => {
      throw error;
    },
  );
  const waits = Array.from({ length: 200 }, async () => {
    const mine = ++counter;
    file.noteChange();
    await file.waitDurable();
    const saved = JSON.parse(await readFile(path, 'utf8')) as PersistedState;
    expect(saved.idRandomState).toBeGreaterThanOrEqual(mine);
  });
  await Promise.all(waits);
  expect(snapshots).toBeLessThanOrEqual(3);
  expect(await readdir(dir)).toEqual(['group.json']);
});

test('with nothing changed, waiting costs no write', async () => {
  const path = join(dir, 'idle.json');
  let snapshots = 0;
  const file = new DurableStateFile(
    path,
    () => (snapshots++, state(0)),
    () => undefined,
  );
  await file.flush();
  expect(snapshots).toBe(1);
  await file.waitDurable();
  await file.waitDurable();
  expect(snapshots).toBe(1);
});

test('a failed commit rejects every waiter with a stable code and is reported once', async () => {
  const path = join(dir, 'missing-dir', 'state.json');
  const reported: string[] = [];
  const file = new DurableStateFile(
    path,
    () => state(1),
    (error) => reported.push(error.code),
  );
  file.noteChange();
  const first = file.waitDurable();
  const second = file.waitDurable();
  await expect(first).rejects.toMatchObject({ code: 'LOCAL_CLOUD_STATE_FILE_WRITE_FAILED' });
  await expect(second).rejects.toMatchObject({ code: 'LOCAL_CLOUD_STATE_FILE_WRITE_FAILED' });
  expect(reported).toEqual(['LOCAL_CLOUD_STATE_FILE_WRITE_FAILED']);
});
