// Persistence of the local cloud: --state-file keeps resources, keys and running lifecycles
// across a restart; writes are atomic (no temp files left behind) and private to the owner.
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service, Vpc } from '../../cloud/models';
import { startLocalCloud } from '../../simulator/server';
import { call, paths, startTestCloud } from '../helpers/local-cloud';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tideline-sim-state-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('a restart keeps projects, keys, resources and the progress of transitions', async () => {
  const stateFile = join(dir, 'state.json');
  const first = await startTestCloud({ stateFile, timeScale: 0.05, saveDebounceMs: 10 });
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
    // The create that was under way before the restart completes afterwards.
    const d = second.cloud.durations;
    await new Promise((resolve) => setTimeout(resolve, (d.queued + d.configuring) * 0.05 + 20));
    expect((await call<Service>(second, 'GET', paths(second).service(id))).body.status).toBe('READY');
    // New IDs never collide with restored ones.
    const another = await call<Service>(second, 'POST', paths(second).services, { body: { name: 'new' } });
    expect(another.body.service_id).not.toBe(id);
  } finally {
    await second.close();
  }
});

test('changes are saved shortly after they happen, not only on close', async () => {
  const stateFile = join(dir, 'debounced.json');
  const cloud = await startTestCloud({ stateFile, saveDebounceMs: 20 });
  try {
    await call(cloud, 'POST', paths(cloud).vpcs, {
      body: { name: 'soon', cidr: '10.5.0.0/16', region_code: 'us-east-1' },
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { vpcs: Array<{ name: string }> };
    expect(saved.vpcs.map((v) => v.name)).toEqual(['soon']);
  } finally {
    await cloud.close();
  }
});

test('a corrupt state file is refused with a clear error', async () => {
  const stateFile = join(dir, 'corrupt.json');
  await writeFile(stateFile, '{"version": 1, "projects": "nope"}');
  await expect(startLocalCloud({ stateFile })).rejects.toMatchObject({
    code: 'SIMULATOR_STATE_FILE_INVALID',
    message: expect.stringContaining(stateFile),
  });
});
