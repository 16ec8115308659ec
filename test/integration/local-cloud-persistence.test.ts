// Persistence of the local cloud: --state-file keeps resources, keys and running lifecycles
// across a restart; a change is in the file before its answer; writes are atomic (no temp files
// left behind, a killed process's are removed at the next start) and private to the owner; IDs
// of deleted resources are remembered. Killing a real process under load: local-cloud-persistence-crash.test.ts.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service, Vpc } from '../../cloud/models';
import { startLocalCloud } from '../../local-cloud/server';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { call, paths, startTestCloud } from '../helpers/local-cloud';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tideline-sim-state-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('a restart keeps projects, keys, resources and the progress of transitions', async () => {
  const stateFile = join(dir, 'state.json');
  const first = await startTestCloud({ stateFile, timeScale: 0.05 });
  const p = paths(first);
  const vpc = await call<Vpc>(first, 'POST', p.vpcs, {
    body: { name: 'kept', cidr: '10.4.0.0/16', region_code: 'us-east-1' },
  });
  const created = await call<Service>(first, 'POST', p.services, { body: { name: 'survivor' } });
  const id = created.body.service_id!;
  await first.close();

  const files = await readdir(dir);
  expect(files).toEqual(['state.json']);
  expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

  const second = await startTestCloud({ stateFile, timeScale: 0.05 });
  try {
    expect(second.project).toEqual(first.project);
    const service = await call<Service>(second, 'GET', paths(second).service(id));
    expect(service.status).toBe(200);
    expect(service.body.name).toBe('survivor');
    expect(service.body.created).toBe(created.body.created);
    expect((await call<Vpc>(second, 'GET', paths(second).vpc(vpc.body.id!))).body).toEqual(vpc.body);
    // The create that was under way before the restart completes afterwards (a lost transition
    // would leave it QUEUED or CONFIGURING, and the wait fails naming the status it saw last).
    await pollUntil(
      `${id} READY after the restart`,
      async () => (await call<Service>(second, 'GET', paths(second).service(id))).body.status,
      (status) => status === 'READY',
      30_000,
    );
    // New IDs never collide with restored ones.
    const another = await call<Service>(second, 'POST', paths(second).services, { body: { name: 'new' } });
    expect(another.body.service_id).not.toBe(id);
  } finally {
    await second.close();
  }
});

test('a change is in the state file by the time its answer arrives', async () => {
  const stateFile = join(dir, 'at-once.json');
  const cloud = await startTestCloud({ stateFile });
  try {
    await call(cloud, 'POST', paths(cloud).vpcs, {
      body: { name: 'soon', cidr: '10.5.0.0/16', region_code: 'us-east-1' },
    });
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { vpcs: Array<{ name: string }> };
    expect(saved.vpcs.map((v) => v.name)).toEqual(['soon']);
    const created = await call<Service>(cloud, 'POST', paths(cloud).services, { body: { name: 'db' } });
    const next = JSON.parse(await readFile(stateFile, 'utf8')) as { services: Array<{ id: string }> };
    expect(next.services.map((s) => s.id)).toEqual([created.body.service_id]);
  } finally {
    await cloud.close();
  }
});

test('temp files a killed process left behind are removed at start', async () => {
  const sub = join(dir, 'orphans');
  await mkdir(sub);
  const stateFile = join(sub, 'state.json');
  await writeFile(join(sub, 'state.json.4242.7.tmp'), '{"torn');
  await writeFile(join(sub, 'other.json.4242.7.tmp'), 'not ours');
  const cloud = await startTestCloud({ stateFile });
  await cloud.close();
  expect((await readdir(sub)).sort()).toEqual(['other.json.4242.7.tmp', 'state.json']);
});

test('IDs of deleted resources are never handed out again after a restart', async () => {
  const stateFile = join(dir, 'retired.json');
  const first = await startTestCloud({ stateFile, timeScale: 0.001, seed: 7 });
  const created = await call<Service>(first, 'POST', paths(first).services, { body: { name: 'gone' } });
  const id = created.body.service_id!;
  expect((await call(first, 'DELETE', paths(first).service(id))).status).toBe(202);
  await first.close();
  const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { retiredIds: string[] };
  // Deleted (or still deleting, then listed as a service): either way the ID stays taken.
  const second = await startTestCloud({ stateFile, timeScale: 0.001, seed: 7 });
  try {
    const listed = await call<Service[]>(second, 'GET', paths(second).services);
    expect(saved.retiredIds.includes(id) || listed.body.some((s) => s.service_id === id)).toBe(true);
    const again = await call<Service>(second, 'POST', paths(second).services, { body: { name: 'new' } });
    expect(again.status).toBe(202);
    expect(again.body.service_id).not.toBe(id);
  } finally {
    await second.close();
  }
});

test('a change that cannot be saved is answered 503, not acknowledged; saving resumes', async () => {
  const sub = join(dir, 'vanishing');
  await mkdir(sub);
  const stateFile = join(sub, 'state.json');
  const cloud = await startTestCloud({ stateFile });
  try {
    await rm(sub, { recursive: true });
    const refused = await call(cloud, 'POST', paths(cloud).services, { body: { name: 'lost' } });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ code: 'INTERNAL', message: expect.stringContaining('not durable') });
    await mkdir(sub);
    const accepted = await call<Service>(cloud, 'POST', paths(cloud).services, { body: { name: 'kept' } });
    expect(accepted.status).toBe(202);
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { services: Array<{ name: string }> };
    expect(saved.services.map((s) => s.name).sort()).toEqual(['kept', 'lost']);
  } finally {
    await cloud.close();
  }
});

test('a corrupt state file is refused with a clear error', async () => {
  const stateFile = join(dir, 'corrupt.json');
  await writeFile(stateFile, '{"version": 1, "projects": "nope"}');
  await expect(startLocalCloud({ stateFile })).rejects.toMatchObject({
    code: 'LOCAL_CLOUD_STATE_FILE_INVALID',
    message: expect.stringContaining(stateFile),
  });
});
