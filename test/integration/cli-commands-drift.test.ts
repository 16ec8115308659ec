// `tideline drift` against a real local cloud over HTTP, with the Cloud API settings a worker uses
// (TIDELINE_CLOUD_*): three PROD services, one lacking an HA replica and one lacking a pooler, and
// a DEV service the rules do not select. The command lists exactly the two that drifted with the
// rule each breaks, as text, JSON and JUnit, and exits 1; a fleet that is right exits 0; an
// invalid state file exits 2 with its position.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jsonOutput, runTideline } from '../helpers/cli-process';
import { startConformanceCloud, type ConformanceCloud } from '../helpers/api-conformance-fixtures';
import { buildDist, REPO_ROOT } from '../helpers/worker-process';

const STATE = path.join(REPO_ROOT, 'test', 'fixtures', 'state', 'prod-fleet.state.yaml');

interface DriftJson {
  ok: boolean;
  drift: boolean;
  findings: {
    rule: string;
    severity: string;
    service: { id: string; name: string };
    found: Record<string, unknown>;
  }[];
}

let fx: ConformanceCloud;
let dir: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  await buildDist();
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-drift-'));
  fx = await startConformanceCloud();
  const project_id = fx.projectId;
  for (const [name, environment_tag] of [
    ['orders', 'PROD'],
    ['billing', 'PROD'],
    ['search', 'PROD'],
    ['scratch', 'DEV'],
  ] as const) {
    ids[name] = (await fx.client.service.create({ project_id, name, environment_tag })).service_id!;
  }
  fx.settle();
  // orders is right; billing has a pooler but no HA replica; search an HA replica but no pooler.
  await fx.client.service.setHA({ project_id, service_id: ids.orders!, replica_count: 1 });
  await fx.client.service.enablePooler({ project_id, service_id: ids.billing! });
  await fx.client.service.setHA({ project_id, service_id: ids.search!, replica_count: 1 });
  fx.settle();
  // One change at a time per service: the second waits until the first has settled.
  await fx.client.service.enablePooler({ project_id, service_id: ids.orders! });
  fx.settle();
}, 240_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fx?.close();
});

const cloudEnv = () => ({
  TIDELINE_CLOUD_URL: fx.tc.url,
  TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
  TIDELINE_CLOUD_PROJECT_ID: fx.projectId,
  TIDELINE_CLOUD_ACCESS_KEY: fx.tc.project.access_key,
  TIDELINE_CLOUD_SECRET_KEY: fx.tc.project.secret_key,
});

test('lists exactly the two PROD services that drifted, with the rule each breaks, and exits 1', async () => {
  const junit = path.join(dir, 'drift.xml');
  const text = await runTideline(['drift', STATE, '--junit', junit], { env: cloudEnv() });
  expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 1, stderr: '' });
  expect(text.stdout).toContain(`✗ billing (${ids.billing}) breaks prod-has-ha [error]`);
  expect(text.stdout).toContain(`! search (${ids.search}) breaks prod-has-pooler [warning]`);
  expect(text.stdout).toMatch(/repair: {3}\.\.\/\.\.\/\.\.\/runbooks\/enable-ha\.yaml/);
  expect(text.stdout).not.toMatch(/orders|scratch/);
  expect(text.stdout).toMatch(/^2 findings in project \S+ \(2 rules, 6 service checks\)$/m);

  const json = await runTideline(['drift', STATE, '--json'], { env: cloudEnv() });
  expect(json.code).toBe(1);
  const report = jsonOutput<DriftJson>(json);
  expect(report.drift).toBe(true);
  expect(report.findings.map((f) => [f.service.name, f.rule])).toEqual([
    ['billing', 'prod-has-ha'],
    ['search', 'prod-has-pooler'],
  ]);
  expect(report.findings[0]?.found).toMatchObject({ 'ha_replicas.replica_count': 0 });

  const xml = readFileSync(junit, 'utf8');
  expect(xml).toContain('<testsuites name="tideline drift" tests="6" failures="2">');
  expect(xml.match(/<failure /g)).toHaveLength(2);
}, 120_000);

test('a fleet that keeps the rules has no drift and exits 0', async () => {
  const clean = path.join(dir, 'clean.state.yaml');
  writeFileSync(
    clean,
    readFileSync(STATE, 'utf8')
      .replaceAll('../../../runbooks/', `${path.join(REPO_ROOT, 'runbooks')}/`)
      .replaceAll('{ environment: PROD }', '{ name: orders }'),
  );
  const result = await runTideline(['drift', clean], { env: cloudEnv() });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout).toMatch(/^✓ no drift: 2 rules over 2 service checks in project \S+$/m);
}, 120_000);

test('an invalid state file is refused with its position before any call, exit 2', async () => {
  const broken = path.join(dir, 'broken.state.yaml');
  writeFileSync(
    broken,
    'apiVersion: tideline/v1\nkind: State\nname: b\nrules:\n  - name: r\n    expect: service.nmae == "x"\n',
  );
  const result = await runTideline(['drift', broken], { env: cloudEnv() });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(
    /broken\.state\.yaml:6:13: rules\.0\.expect: .*nmae.* \[STATE_FILE_INVALID\]/,
  );
  expect(result.stdout).toBe('');
}, 120_000);
