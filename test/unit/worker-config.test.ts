import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { loadWorkerConfig, type WorkerConfig } from '../../worker/config';
import { describeTemporalSettings, loadTemporalSettings } from '../../worker/connection';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import type { CloudClientOptions } from '../../cloud/client';
import { thrownBy } from '../helpers/thrown';
import { generateKeyPairSync } from 'node:crypto';
import { publicKeyText } from '../../activities/approval-keys';

const SECRET = 'sk-very-secret-value';
const envCredentials = {
  TIDELINE_CLOUD_URL: 'https://api.example.com/public/api/v1/',
  TIDELINE_CLOUD_PROJECT_ID: 'proj000001',
  TIDELINE_CLOUD_ACCESS_KEY: 'AK1',
  TIDELINE_CLOUD_SECRET_KEY: SECRET,
};

/** Loads with a config file held in memory. */
function loadWithFile(content: string, env: NodeJS.ProcessEnv = {}): WorkerConfig {
  return loadWorkerConfig({
    env: { TIDELINE_CONFIG: '/etc/tideline/worker.yaml', ...env },
    readFile: (file) => {
      expect(file).toBe('/etc/tideline/worker.yaml');
      return content;
    },
  });
}

const errorOf = thrownBy;

describe('loadWorkerConfig', () => {
  test('from the environment alone: defaults, normalised URL, one default project', () => {
    const config = loadWorkerConfig({ env: envCredentials });
    expect(config.taskQueue).toBe('tideline');
    expect(config.metricsAddress).toBeUndefined();
    expect(config.cloud.baseUrl).toBe('https://api.example.com/public/api/v1');
    expect(config.cloud.defaultProjectId).toBe('proj000001');
    const project = config.cloud.projects.get('proj000001');
    expect(project?.accessKey).toBe('AK1');
    expect(project?.secretKey?.reveal()).toBe(SECRET);
  });

  test('a YAML file with several projects; environment overrides and adds', () => {
    const yaml = `
taskQueue: from-file
metricsAddress: 127.0.0.1:9464
cloud:
  baseUrl: https://file.example.com/public/api/v1
  defaultProject: projaaaaaa
  projects:
    projaaaaaa: { accessKey: AKA, secretKey: SKA }
    projbbbbbb:
      accessKey: AKB
      secretKey: SKB
      baseUrl: https://eu.example.com/public/api/v1
`;
    const fileOnly = loadWithFile(yaml);
    expect(fileOnly.taskQueue).toBe('from-file');
    expect(fileOnly.metricsAddress).toBe('127.0.0.1:9464');
    expect(fileOnly.cloud.defaultProjectId).toBe('projaaaaaa');
    expect(fileOnly.cloud.projects.get('projbbbbbb')?.baseUrl).toBe('https://eu.example.com/public/api/v1');
    expect(fileOnly.cloud.projects.get('projaaaaaa')?.baseUrl).toBe('https://file.example.com/public/api/v1');

    const withEnv = loadWithFile(yaml, { ...envCredentials, TIDELINE_TASK_QUEUE: 'from-env' });
    expect(withEnv.taskQueue).toBe('from-env');
    expect(withEnv.cloud.baseUrl).toBe('https://api.example.com/public/api/v1');
    expect([...withEnv.cloud.projects.keys()].sort()).toEqual(['proj000001', 'projaaaaaa', 'projbbbbbb']);
    expect(withEnv.cloud.defaultProjectId).toBe('proj000001');
  });

  test('JSON files work too', () => {
    const config = loadWithFile(
      JSON.stringify({
        cloud: { baseUrl: 'https://x.example.com', projects: { p: { accessKey: 'a', secretKey: 'b' } } },
      }),
    );
    expect(config.cloud.defaultProjectId).toBe('p');
  });

  test('plain http is refused unless loopback and explicitly allowed', () => {
    const insecure = { ...envCredentials, TIDELINE_CLOUD_URL: 'http://127.0.0.1:4010/public/api/v1' };
    const refused = errorOf(() => loadWorkerConfig({ env: insecure }));
    expect(refused.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(refused.message).toMatch(/cloud\.baseUrl: .*allowInsecureLoopback/);
    const allowed = loadWorkerConfig({ env: { ...insecure, TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1' } });
    expect(allowed.cloud).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010/public/api/v1',
      allowInsecureLoopback: true,
    });
    const remote = errorOf(() =>
      loadWorkerConfig({
        env: {
          ...insecure,
          TIDELINE_CLOUD_URL: 'http://api.example.com',
          TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
        },
      }),
    );
    expect(remote.message).toMatch(/non-loopback/);
  });

  test('lists every problem at once, with where to fix it', () => {
    const error = errorOf(() =>
      loadWorkerConfig({ env: { TIDELINE_CLOUD_ACCESS_KEY: 'AK', TIDELINE_METRICS_ADDRESS: 'nope' } }),
    );
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toMatch(/TIDELINE_CLOUD_PROJECT_ID and TIDELINE_CLOUD_SECRET_KEY must be set too/);
    expect(error.message).toMatch(/metricsAddress: must look like host:port/);
    expect(error.message).toMatch(/cloud\.baseUrl: required/);
  });

  test('missing URL and credentials are named with the variables to set', () => {
    const error = errorOf(() => loadWorkerConfig({ env: {} }));
    expect(error.message).toMatch(/cloud\.baseUrl: required \(set TIDELINE_CLOUD_URL/);
    expect(error.message).toMatch(/cloud\.projects: no Cloud API credentials/);
  });

  test.each([
    [
      'an unknown key (typo)',
      'cloud:\n  baseURL: https://x.example.com\n',
      /cloud: Unrecognized key: "baseURL"/,
    ],
    ['a wrong type', 'taskQueue: 12\n', /taskQueue: .*string/],
    ['a list instead of a mapping', '- a\n- b\n', /must hold a mapping/],
    [
      'a project without secret',
      'cloud:\n  baseUrl: https://x.example.com\n  projects:\n    p: { accessKey: a }\n',
      /cloud\.projects\.p\.secretKey/,
    ],
    [
      'an unknown default project',
      'cloud:\n  baseUrl: https://x.example.com\n  defaultProject: q\n  projects:\n    p: { accessKey: a, secretKey: b }\n',
      /defaultProject: "q" is not one of/,
    ],
  ])('a file with %s fails clearly', (_label, content, message) => {
    const error = errorOf(() => loadWithFile(content));
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toContain('/etc/tideline/worker.yaml');
    expect(error.message).toMatch(message);
  });

  test('YAML syntax errors give the position but never quote the line (it may hold a secret)', () => {
    const error = errorOf(() =>
      loadWithFile(`cloud:\n  projects:\n    p: { accessKey: a, secretKey: "${SECRET}\n`),
    );
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toMatch(/syntax error at line \d+, column \d+/);
    expect(error.message).not.toContain(SECRET);
  });

  test('a missing config file is named', () => {
    const error = errorOf(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: '/nonexistent/tideline.yaml' } }));
    expect(error.message).toMatch(/\/nonexistent\/tideline\.yaml, which cannot be read \(ENOENT\)/);
  });

  test.each([
    ['a directory', () => tmpdir(), 'is a directory, not a config file'],
    ['a device', () => '/dev/zero', 'is a device, not a config file'],
  ])('a config file that is %s is a configuration error, read no further', (_, file, reason) => {
    const error = errorOf(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: file() } }));
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toBe(
      `invalid tideline worker configuration (${file()}):\n  - TIDELINE_CONFIG names ${file()}, which ${reason}`,
    );
  });

  test('a config file over 1 MiB or not UTF-8 is a configuration error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-config-'));
    try {
      const big = path.join(dir, 'big.yaml');
      writeFileSync(big, `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
      expect(errorOf(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: big } })).message).toContain(
        `TIDELINE_CONFIG names ${big}, which is larger than 1 MiB, the limit for a config file`,
      );
      const latin1 = path.join(dir, 'latin1.yaml');
      writeFileSync(latin1, Buffer.from('taskQueue: caf\xe9\n', 'latin1'));
      expect(errorOf(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: latin1 } })).message).toContain(
        `TIDELINE_CONFIG names ${latin1}, which holds invalid UTF-8 at line 1, column 15`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('secrets never show in inspect, JSON or String output', () => {
    const config = loadWorkerConfig({ env: envCredentials });
    const shown = [
      inspect(config, { depth: 10 }),
      JSON.stringify(config),
      String(config.cloud.projects.get('proj000001')?.secretKey),
    ];
    for (const text of shown) expect(text).not.toContain(SECRET);
    expect(inspect(config)).toContain('proj000001');
  });
});

describe('the temporal section shared with the CLI', () => {
  test('a config file may name the Temporal address and namespace', () => {
    const config = loadWithFile('temporal: { address: 10.0.0.5:7233, namespace: ops }\n', envCredentials);
    expect(config.temporal).toEqual({ address: '10.0.0.5:7233', namespace: 'ops' });
  });

  test('an unknown key in it is refused', () => {
    const error = errorOf(() => loadWithFile('temporal: { adress: x }\n', envCredentials));
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toContain('adress');
  });
});

describe('cloud client resolver', () => {
  test('one client per project, built from the configuration; unknown projects fail clearly', () => {
    const config = loadWithFile(
      'cloud:\n  baseUrl: https://x.example.com/v1\n  timeoutMs: 5000\n  projects:\n    p1: { accessKey: a1, secretKey: s1 }\n    p2: { accessKey: a2, secretKey: s2 }\n',
    );
    const built: CloudClientOptions[] = [];
    const resolver = createCloudClientResolver(config.cloud, (options) => {
      built.push(options);
      return { call: async () => undefined as never };
    });
    const forDefault = resolver.forProject(undefined);
    expect(resolver.forProject('p1')).toBe(forDefault);
    resolver.forProject('p2');
    expect(built.map((options) => [options.accessKey, options.baseUrl, options.timeoutMs])).toEqual([
      ['a1', 'https://x.example.com/v1', 5000],
      ['a2', 'https://x.example.com/v1', 5000],
    ]);
    const error = errorOf(() => resolver.forProject('p3'));
    expect(error).toMatchObject({ code: 'CLOUD_API_CONFIG' });
    expect(error.message).toContain('"p3"');
    expect(error.message).not.toMatch(/s1|s2/);
  });
});

describe('Temporal connection settings', () => {
  test('defaults to localhost:7233 and namespace default without TLS', () => {
    const settings = loadTemporalSettings({ env: { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' } });
    expect(settings.connection.address).toBe('localhost:7233');
    expect(settings.namespace).toBe('default');
    expect(describeTemporalSettings(settings)).toMatchObject({ tls: 'off', apiKey: 'none' });
  });

  test('standard variables: address, namespace, API key (implies TLS), metadata; the key is never shown', () => {
    const settings = loadTemporalSettings({
      env: {
        TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml',
        TEMPORAL_ADDRESS: 'ns.a1b2c.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'ns.a1b2c',
        TEMPORAL_API_KEY: 'api-key-secret',
        TEMPORAL_GRPC_META_X_TEAM: 'sre',
      },
    });
    expect(settings.connection).toMatchObject({
      address: 'ns.a1b2c.tmprl.cloud:7233',
      apiKey: 'api-key-secret',
      tls: true,
    });
    expect(settings.namespace).toBe('ns.a1b2c');
    expect(describeTemporalSettings(settings)).toEqual({
      address: 'ns.a1b2c.tmprl.cloud:7233',
      namespace: 'ns.a1b2c',
      tls: 'on',
      apiKey: 'set',
      grpcMetadata: ['x-team'],
    });
    expect(`${inspect(settings)} ${JSON.stringify(settings)}`).not.toContain('api-key-secret');
  });

  test('profiles from a TOML file, selected by TEMPORAL_PROFILE', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-toml-'));
    try {
      writeFileSync(
        `${dir}/temporal.toml`,
        '[profile.default]\naddress = "localhost:7233"\n\n[profile.staging]\naddress = "staging.internal:7233"\nnamespace = "staging"\n',
      );
      const settings = loadTemporalSettings({
        env: { TEMPORAL_CONFIG_FILE: `${dir}/temporal.toml`, TEMPORAL_PROFILE: 'staging' },
      });
      expect(settings.connection.address).toBe('staging.internal:7233');
      expect(settings.namespace).toBe('staging');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('policies that could never be enforced as written', () => {
  const key = publicKeyText(generateKeyPairSync('ed25519').publicKey);
  const policy = (approvals: string) => `
policies:
  - name: rotation-needs-two
    when: "runbook.name == 'rotate-password'"
    effect: require-approval
    approvals: ${approvals}
`;

  test('a quorum of a group no approver section defines is refused, naming the rule', () => {
    const error = errorOf(() => loadWithFile(policy('{ group: dba, count: 2 }'), envCredentials));
    expect(error).toMatchObject({ code: 'TIDELINE_CONFIG_INVALID' });
    expect(error.message).toContain(
      'policies[0].approvals: rule rotation-needs-two asks approvals of group:dba, which approvals.groups does not define',
    );
  });

  test('a quorum larger than the members with keys is refused; one they can give loads', () => {
    const approvals = `approvals:
  keys: { alice: '${key}', dave: '${key}' }
  groups: { dba: [alice, dave, nokey] }
`;
    const error = errorOf(() => loadWithFile(policy('{ group: dba, count: 3 }') + approvals, envCredentials));
    expect(error.message).toContain(
      'policies[0].approvals: rule rotation-needs-two asks 3 approvals of group:dba, which has 2 members with a key under approvals.keys (alice, dave); no run could get past it',
    );
    const loaded = loadWithFile(policy('{ group: dba, count: 2 }') + approvals, envCredentials);
    expect(loaded.governance?.rules.map((rule) => rule.spec.name)).toEqual(['rotation-needs-two']);
  });

  test("a window's override is held to the same", () => {
    const error = errorOf(() =>
      loadWithFile(
        `calendars:
  freeze: { kind: freeze, timezone: UTC, from: '2030-01-01T00:00:00Z', until: '2030-01-02T00:00:00Z' }
policies:
  - { name: frozen, when: 'true', effect: window, calendar: freeze, outside: wait, override: { group: ops, count: 1 } }
`,
        envCredentials,
      ),
    );
    expect(error.message).toContain('policies[0].override: rule frozen asks approvals of group:ops');
  });
});
