// The vendor's own CLI (tiger-cli, pinned in scripts/setup-tiger-cli.js) against the local cloud:
// auth login/status, service list/create/get/fork/stop/start/resize/update-password/logs/delete and
// db connection-string, each answer compared with what the local cloud's typed client reads. The binary is built once (through
// the Go module proxy) and cached under .tools/; without it or Go the suite is skipped with the
// reason (a failure under TIDELINE_REQUIRE_TOOLS=1).
import { call } from '../helpers/local-cloud';
import { tigerCliMissing, useTigerSuite } from '../helpers/tiger-suite';
import { describeWithTools } from '../helpers/tool-requirements';
import { collectLogEntries } from '../../cloud/logs';
import type { Service } from '../../cloud/models';

/** Fields of spec.md's Service that the vendor's OpenAPI model lacks (its client drops them). */
const NOT_IN_VENDOR_MODEL = ['paused', 'metrics', 'initial_password'];

/** The fields the CLI shows straight from the API (it adds connection details of its own). */
function apiFields(shown: Record<string, unknown>, of: Service): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(of)
      .filter((key) => !NOT_IN_VENDOR_MODEL.includes(key))
      .map((key) => [key, shown[key]]),
  );
}

function vendorView(service: Service): Record<string, unknown> {
  return Object.fromEntries(Object.entries(service).filter(([key]) => !NOT_IN_VENDOR_MODEL.includes(key)));
}

describeWithTools('tiger-cli against the local cloud', tigerCliMissing(), () => {
  const suite = useTigerSuite({ label: 'tiger-cli', seed: 12 });

  it('auth login checks the key pair with GET /auth/info and stores the credentials file', async () => {
    const t = suite.tiger;
    const { tc } = suite;
    const { access_key, secret_key, id } = tc.project;
    const login = await t.run('auth', 'login', '--public-key', access_key, '--secret-key', secret_key);
    expect([login.code, login.stderr]).toEqual([0, '']);
    expect(login.stdout).toContain(`Successfully logged in (project: ${id})`);
    const status = await t.json('auth', 'status');
    // What the API answered (the typed client also reads the key under its newer name, api_key).
    const answered = await call(tc, 'GET', '/auth/info');
    expect(answered.status).toBe(200);
    expect(status).toEqual(answered.body);
    const bad = await t.run('auth', 'login', '--public-key', access_key, '--secret-key', 'wrong-secret');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('API key validation failed');
  });

  it('runs the service commands; every answer is the API view', async () => {
    const t = suite.tiger;
    const { tc, client, project, settle } = suite;
    t.writeCredentials();
    const empty = await t.run('service', 'list', '-o', 'json');
    expect([empty.code, empty.stdout]).toEqual([0, '']);

    // create: the CLI always sends environment_tag.
    const created = await t.json(
      'service',
      'create',
      '--name',
      'tiger-made',
      '--environment',
      'PROD',
      '--no-wait',
    );
    const id = String(created.service_id);
    const queued = await client.service.get({ ...project, service_id: id });
    expect(queued).toMatchObject({ status: 'QUEUED', metadata: { environment: 'PROD' }, name: 'tiger-made' });
    expect(apiFields(created, queued)).toEqual(vendorView(queued));
    settle();
    const ready = await client.service.get({ ...project, service_id: id });
    expect(apiFields(await t.json('service', 'get', id), ready)).toEqual(vendorView(ready));
    const listed = await t.json<Record<string, unknown>[]>('service', 'list');
    expect(listed.map((s) => [s.service_id, s.status])).toEqual([[id, 'READY']]);

    // fork with shared sizes: the API answers null sizes, which the CLI shows as "shared".
    const fork = await t.json(
      'service',
      'fork',
      id,
      '--now',
      '--cpu',
      'shared',
      '--memory',
      'shared',
      '--no-wait',
    );
    const forkId = String(fork.service_id);
    expect(fork.forked_from).toEqual({ is_standby: false, project_id: tc.project.id, service_id: id });
    const forked = await client.service.get({ ...project, service_id: forkId });
    expect(forked.resources?.[0]?.spec).toEqual({ cpu_millis: null, memory_gbs: null, volume_type: '' });
    const table = await t.run('service', 'get', forkId);
    expect(table.stdout).toMatch(/CPU\s*│\s*shared/);

    // stop / start
    const stop = await t.run('service', 'stop', id, '--no-wait');
    expect([stop.code, (await client.service.get({ ...project, service_id: id })).status]).toEqual([
      0,
      'PAUSING',
    ]);
    settle();
    const start = await t.run('service', 'start', id, '--no-wait');
    expect([start.code, (await client.service.get({ ...project, service_id: id })).status]).toEqual([
      0,
      'RESUMING',
    ]);
    settle();

    // db connection-string of the service and of its read replica set (a standby service).
    const direct = await t.run('db', 'connection-string', id);
    expect(direct.stdout.trim()).toBe(
      `postgresql://tsdbadmin@${ready.endpoint?.host}:${ready.endpoint?.port}/tsdb?sslmode=require`,
    );
    const set = await client.replicaSet.create({
      ...project,
      service_id: id,
      name: 'readers',
      nodes: 1,
      cpu_millis: 1000,
      memory_gbs: 4,
    });
    settle();
    const standby = await t.json('service', 'get', set.id!);
    expect(standby).toMatchObject({
      service_id: set.id,
      forked_from: { is_standby: true, service_id: id },
      endpoint: set.endpoint,
    });
    const replica = await t.run('db', 'connection-string', set.id!);
    expect([replica.code, replica.stdout.trim()]).toEqual([
      0,
      `postgresql://tsdbadmin@${set.endpoint?.host}:${set.endpoint?.port}/tsdb?sslmode=require`,
    ]);

    // delete
    const gone = await t.run('service', 'delete', forkId, '--confirm', '--no-wait');
    expect(gone.code).toBe(0);
    expect((await client.service.get({ ...project, service_id: forkId })).status).toBe('DELETING');
    settle();
    const missing = await t.run('service', 'get', forkId);
    expect(missing.code).not.toBe(0);
  });

  it('resizes, updates the password (not of a read replica set) and reads the logs as the API has them', async () => {
    const t = suite.tiger;
    const { tc, client, project, settle } = suite;
    t.writeCredentials();
    const created = await client.service.create({ ...project, name: 'tiger-ops' });
    const id = created.service_id!;
    settle();

    // resize: the CLI sends the numeric pair; the API moves the service to CONFIGURING, then READY.
    const resize = await t.run('service', 'resize', id, '--cpu', '2000', '--memory', '8', '--no-wait');
    expect([resize.code, resize.stderr]).toEqual([0, expect.stringContaining('Resize request accepted')]);
    expect((await client.service.get({ ...project, service_id: id })).status).toBe('CONFIGURING');
    settle();
    const resized = await client.service.get({ ...project, service_id: id });
    expect(resized.resources?.[0]?.spec).toMatchObject({ cpu_millis: 2000, memory_gbs: 8 });
    expect(apiFields(await t.json('service', 'get', id), resized)).toEqual(vendorView(resized));

    // update-password: one accepted call. A read replica set's id is refused by the CLI itself,
    // before any update, because the API answers it as a standby service (forked_from.is_standby).
    const updates = () => tc.cloud.stats().byAction['service.updatePassword']?.byStatus ?? {};
    const password = await t.run('service', 'update-password', id, '--new-password', 'Fresh-Secret-42');
    expect([password.code, password.stderr]).toEqual([0, expect.stringContaining('updated successfully')]);
    expect(updates()).toEqual({ '204': 1 });
    const set = await client.replicaSet.create({
      ...project,
      service_id: id,
      name: 'ops-readers',
      nodes: 1,
      cpu_millis: 1000,
      memory_gbs: 4,
    });
    settle();
    const refused = await t.run('service', 'update-password', set.id!, '--new-password', 'Other-Secret-42');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      `"${set.id}" is a read replica; update the password on its primary service "${id}"`,
    );
    expect(updates()).toEqual({ '204': 1 });

    // logs: the newest --tail entries of the API's pages, oldest first. With more than a page
    // (500) of entries, the CLI follows lastCursor (sending cursor and its own until) as the API
    // pages them. The manual clock is in 2025, so the CLI's `until` (its wall clock) covers them.
    suite.tc.advance(700 * 1000); // one generated entry per second of a service's age
    const logCalls = () => tc.cloud.stats().byAction['service.logs']?.total ?? 0;
    const before = logCalls();
    const logs = await t.json<Array<{ timestamp: string; message: string; severity: string }>>(
      'service',
      'logs',
      id,
      '--tail',
      '600',
    );
    expect(logCalls() - before).toBe(2); // two pages
    const newest = await collectLogEntries(client, { ...project, service_id: id }, { max: 600 });
    expect(newest).toHaveLength(600);
    expect(logs.map((entry) => ({ ...entry, timestamp: Date.parse(entry.timestamp) }))).toEqual(
      newest.reverse().map((entry) => ({
        timestamp: Date.parse(entry.timestamp!),
        message: entry.message,
        severity: entry.severity,
      })),
    );
  });
});
