// `tideline state import` against a real local cloud over HTTP, with the Cloud API settings a
// worker uses (TIDELINE_CLOUD_*): importing the PROD services writes a valid state file with no
// secret in it; `tideline drift` on it exits 0; after one service changes it exits 1 naming
// exactly the rule of the fact that changed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import {
  startConformanceCloud,
  workerCloudEnvironment,
  type ConformanceCloud,
} from '../helpers/api-conformance-fixtures';
import { buildDist } from '../helpers/worker-process';

let fx: ConformanceCloud;
let dir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-state-import-'));
  fx = await startConformanceCloud();
  const project_id = fx.projectId;
  for (const [name, environment_tag] of [
    ['orders', 'PROD'],
    ['search', 'PROD'],
    ['scratch', 'DEV'],
  ] as const) {
    ids[name] = (await fx.client.service.create({ project_id, name, environment_tag })).service_id!;
  }
  fx.settle();
  await fx.client.service.setHA({ project_id, service_id: ids.orders!, replica_count: 1 });
  fx.settle();
  await fx.client.service.enablePooler({ project_id, service_id: ids.orders! });
  fx.settle();
}, 240_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fx?.close();
});

const cloudEnv = () => workerCloudEnvironment(fx);

test('import → drift exits 0 → a service changes → drift exits 1 on that fact', async () => {
  const file = path.join(dir, 'prod.state.yaml');
  const imported = await runTideline(
    ['state', 'import', '--environment', 'PROD', '--state-name', 'prod', '--out', file],
    { env: cloudEnv() },
  );
  expect(imported).toMatchObject({ code: 0, stdout: '', stderr: 'wrote ' + file + ' (12 rules)\n' });
  const text = readFileSync(file, 'utf8');
  expect(text).toContain('kind: State');
  expect(text).toContain(`project_id: ${fx.projectId}`);
  expect(text).not.toContain('scratch');
  expect(text).not.toContain(fx.tc.project.secret_key);
  expect(text).not.toMatch(/password/i);

  const clean = await runTideline(['drift', file], { env: cloudEnv() });
  expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: '' });
  expect(clean.stdout).toMatch(/^✓ no drift: 12 rules over 12 service checks/m);

  await fx.client.service.setHA({ project_id: fx.projectId, service_id: ids.search!, replica_count: 1 });
  fx.settle();
  const drifted = await runTideline(['drift', file, '--json'], { env: cloudEnv() });
  expect(drifted.code).toBe(1);
  const report = jsonOutput<{ findings: { rule: string; service: { id: string } }[] }>(drifted);
  expect(report.findings.map((f) => [f.rule, f.service.id])).toEqual([['search-ha', ids.search]]);

  const again = await runTideline(['state', 'import', '--out', file], { env: cloudEnv() });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('already exists');
}, 120_000);

test('to stdout, by name; a selector that matches nothing writes nothing and exits 2', async () => {
  const out = await runTideline(['state', 'import', '--name', 'scr*'], { env: cloudEnv() });
  expect(out.code).toBe(0);
  expect(out.stdout).toContain('name: scratch-environment');
  expect(out.stdout).not.toContain('orders');
  writeFileSync(path.join(dir, 'from-stdout.state.yaml'), out.stdout);
  const clean = await runTideline(['drift', path.join(dir, 'from-stdout.state.yaml')], { env: cloudEnv() });
  expect(clean.code).toBe(0);

  const none = await runTideline(['state', 'import', '--name', 'nothing-*'], { env: cloudEnv() });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('no service of project');
}, 120_000);

test('a name with a wildcard in it is imported as that name only: drift right after is clean', async () => {
  const project_id = fx.projectId;
  // `web*` and `web-1` hold different facts: a rule of `web*` that selected `web-1` too would drift.
  await fx.client.service.create({ project_id, name: 'web*', environment_tag: 'DEV' });
  const web1 = (await fx.client.service.create({ project_id, name: 'web-1', environment_tag: 'DEV' }))
    .service_id!;
  fx.settle();
  await fx.client.service.setHA({ project_id, service_id: web1, replica_count: 1 });
  fx.settle();

  const file = path.join(dir, 'web.state.yaml');
  const imported = await runTideline(['state', 'import', '--name', 'web*', '--out', file], {
    env: cloudEnv(),
  });
  expect({ code: imported.code, stderr: imported.stderr }).toMatchObject({ code: 0 });
  const text = readFileSync(file, 'utf8');
  expect(text).toMatch(/name: web\\\*$/m);
  expect(text).toMatch(/name: web-1$/m);

  const drift = await runTideline(['drift', file, '--json'], { env: cloudEnv() });
  const report = jsonOutput<{ findings: unknown[]; checked: Record<string, { name: string }[]> }>(drift);
  expect({ code: drift.code, findings: report.findings }).toEqual({ code: 0, findings: [] });
  // Each rule looked at its own service only.
  for (const [rule, services] of Object.entries(report.checked))
    expect(services.map((s) => s.name)).toEqual([rule.startsWith('web-1-') ? 'web-1' : 'web*']);
}, 120_000);
