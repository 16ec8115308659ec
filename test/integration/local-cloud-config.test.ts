// The local cloud's config schema and file loader (YAML and JSON), and how options override it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfigFile, parseConfig } from '../../local-cloud/config';
import { startLocalCloud } from '../../local-cloud/server';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tideline-sim-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test('defaults: time scale 1, a create of about three seconds, no projects, no faults', () => {
  const config = parseConfig({});
  expect(config.timeScale).toBe(1);
  expect(config.durations.queued + config.durations.configuring).toBe(3000);
  expect(config.projects).toEqual([]);
  expect(config.faults).toEqual([]);
  expect(config.seed).toBeUndefined();
});

test('YAML and JSON files load to the same configuration', async () => {
  const yamlFile = join(dir, 'c.yaml');
  const jsonFile = join(dir, 'c.json');
  await writeFile(
    yamlFile,
    [
      'seed: 7',
      'timeScale: 0.5',
      'durations: { configuring: 100 }',
      'faults:',
      '  - { action: service.create, kind: error, probability: 0.3 }',
      '',
    ].join('\n'),
  );
  await writeFile(
    jsonFile,
    JSON.stringify({
      seed: 7,
      timeScale: 0.5,
      durations: { configuring: 100 },
      faults: [{ action: 'service.create', kind: 'error', probability: 0.3 }],
    }),
  );
  const fromYaml = await loadConfigFile(yamlFile);
  expect(await loadConfigFile(jsonFile)).toEqual(fromYaml);
  expect(fromYaml.durations.configuring).toBe(100);
  expect(fromYaml.durations.queued).toBe(1000);
  expect(fromYaml.faults).toEqual([
    { action: 'service.create', kind: 'error', probability: 0.3, status: 500 },
  ]);
});

test('invalid configs name every bad field', () => {
  let message = '';
  try {
    parseConfig({
      timeScale: 0,
      durations: { configuring: -1, warp: 1 },
      faults: [{ action: 'service.teleport', kind: 'error' }],
      projects: [
        { access_key: 'same', secret_key: '12345678' },
        { access_key: 'same', secret_key: '12345678' },
        { access_key: 'lonely' },
      ],
    });
  } catch (error) {
    expect((error as { code?: string }).code).toBe('LOCAL_CLOUD_CONFIG_INVALID');
    message = (error as Error).message;
  }
  for (const part of [
    /timeScale: /,
    /durations\.configuring: /,
    /durations: .*warp/,
    /faults\[0\]\.action: /,
    /projects\[1\]\.access_key: duplicate access_key/,
    /projects\[2\]: give both/,
  ]) {
    expect(message).toMatch(part);
  }
  expect(message).not.toContain('12345678');
});

test('options override the config: time scale, seed, durations merge, faults append', async () => {
  const cloud = await startLocalCloud({
    config: {
      seed: 1,
      timeScale: 2,
      durations: { queued: 10 },
      faults: [{ action: 'vpc.list', kind: 'error' }],
    },
    seed: 9,
    timeScale: 0.5,
    durations: { configuring: 20 },
    faults: [{ action: 'vpc.get', kind: 'latency', ms: 5 }],
  });
  try {
    expect(cloud.seed).toBe(9);
    expect(cloud.timeScale).toBe(0.5);
    expect(cloud.durations).toMatchObject({ queued: 10, configuring: 20 });
    expect(cloud.listFaults().map((rule) => [rule.action, rule.kind])).toEqual([
      ['vpc.list', 'error'],
      ['vpc.get', 'latency'],
    ]);
    expect(cloud.projects).toHaveLength(1);
  } finally {
    await cloud.close();
  }
});
