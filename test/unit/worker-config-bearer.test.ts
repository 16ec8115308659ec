// A worker project that authenticates with a bearer token instead of the key pair: the config
// file's `{ bearerToken }`, TIDELINE_CLOUD_BEARER_TOKEN, the errors for doubled or incomplete
// credentials, and that the token never shows in what the worker prints or logs.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { LogLevel, LogMetadata } from '@temporalio/common';
import type { CloudClientOptions } from '../../cloud/client';
import { revealSecret } from '../../cloud/redact';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import {
  describeWorkerConfig,
  loadWorkerConfig,
  projectSecrets,
  type WorkerConfig,
} from '../../worker/config';
import { createRedactingLogger } from '../../worker/redacting-logger';
import { thrownBy } from '../helpers/thrown';

const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJwcm9qYmJiYmJiIn0.c2lnbmF0dXJlLXRva2Vu';
const SECRET_PART = 'c2lnbmF0dXJl';
const URL = 'https://api.example.com/public/api/v1';
const envToken = {
  TIDELINE_CLOUD_URL: URL,
  TIDELINE_CLOUD_PROJECT_ID: 'projbbbbbb',
  TIDELINE_CLOUD_BEARER_TOKEN: TOKEN,
};

function loadWithFile(content: string, env: NodeJS.ProcessEnv = {}): WorkerConfig {
  return loadWorkerConfig({
    env: { TIDELINE_CONFIG: '/etc/tideline/worker.yaml', ...env },
    readFile: () => content,
  });
}

const errorOf = thrownBy;

const file = (projects: string) => `cloud:\n  baseUrl: ${URL}\n  projects:\n${projects}`;

describe('bearer token credentials in the config file', () => {
  test('a project with a token next to one with a key pair; each gets its own kind of client', () => {
    const config = loadWithFile(
      file(
        `    projaaaaaa: { accessKey: AKA, secretKey: SKA }\n    projbbbbbb: { bearerToken: "${TOKEN}" }\n`,
      ),
    );
    const tokenProject = config.cloud.projects.get('projbbbbbb');
    expect(tokenProject?.bearerToken?.reveal()).toBe(TOKEN);
    expect(tokenProject?.accessKey).toBeUndefined();
    expect(config.cloud.projects.get('projaaaaaa')?.secretKey?.reveal()).toBe('SKA');

    const built: CloudClientOptions[] = [];
    const resolver = createCloudClientResolver(config.cloud, (options) => {
      built.push(options);
      return { call: async () => undefined as never };
    });
    resolver.forProject('projaaaaaa');
    resolver.forProject('projbbbbbb');
    expect(
      built.map((o) => [
        o.accessKey,
        o.secretKey && revealSecret(o.secretKey),
        o.bearerToken && revealSecret(o.bearerToken),
      ]),
    ).toEqual([
      ['AKA', 'SKA', undefined],
      [undefined, undefined, TOKEN],
    ]);
    expect(projectSecrets(config.cloud).sort()).toEqual(['SKA', TOKEN].sort());
  });

  test.each([
    [
      'a token and a key pair at once',
      `    p: { accessKey: a, secretKey: b, bearerToken: "${TOKEN}" }\n`,
      /cloud\.projects\.p: give either accessKey and secretKey, or bearerToken, not both/,
    ],
    [
      'a token and half a key pair',
      `    p: { secretKey: b, bearerToken: "${TOKEN}" }\n`,
      /cloud\.projects\.p: give either accessKey and secretKey, or bearerToken, not both/,
    ],
    [
      'no credentials',
      '    p: { baseUrl: https://eu.example.com/v1 }\n',
      /cloud\.projects\.p: no credentials: give accessKey and secretKey, or bearerToken/,
    ],
    ['an empty token', '    p: { bearerToken: "" }\n', /cloud\.projects\.p\.bearerToken: must not be empty/],
    [
      'a token with the "Bearer " prefix',
      `    p: { bearerToken: "Bearer ${TOKEN}" }\n`,
      /cloud\.projects\.p\.bearerToken: must be printable ASCII without spaces \(the token alone, without "Bearer "\)/,
    ],
    [
      'an access key without its secret',
      '    p: { accessKey: a }\n',
      /cloud\.projects\.p\.secretKey: required with accessKey \(or give bearerToken alone instead of the key pair\)/,
    ],
  ])(
    '%s is a configuration error saying what to fix, never quoting the token',
    (_label, projects, message) => {
      const error = errorOf(() => loadWithFile(file(projects)));
      expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
      expect(error.message).toContain('/etc/tideline/worker.yaml');
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain(SECRET_PART);
    },
  );
});

describe('TIDELINE_CLOUD_BEARER_TOKEN', () => {
  test('with TIDELINE_CLOUD_PROJECT_ID: one project, the default, authenticating with the token', () => {
    const config = loadWorkerConfig({ env: envToken });
    expect(config.cloud.defaultProjectId).toBe('projbbbbbb');
    const project = config.cloud.projects.get('projbbbbbb');
    expect(project?.bearerToken?.reveal()).toBe(TOKEN);
    expect(project?.secretKey).toBeUndefined();
  });

  test('replaces a key pair the file gives the same project', () => {
    const config = loadWithFile(file('    projbbbbbb: { accessKey: AK, secretKey: SK }\n'), envToken);
    const project = config.cloud.projects.get('projbbbbbb');
    expect([project?.accessKey, project?.secretKey]).toEqual([undefined, undefined]);
    expect(project?.bearerToken?.reveal()).toBe(TOKEN);
  });

  test('with the key pair variables too is an error naming them all', () => {
    const error = errorOf(() =>
      loadWorkerConfig({
        env: { ...envToken, TIDELINE_CLOUD_ACCESS_KEY: 'AK', TIDELINE_CLOUD_SECRET_KEY: 'SK' },
      }),
    );
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toContain(
      'TIDELINE_CLOUD_BEARER_TOKEN is set together with TIDELINE_CLOUD_ACCESS_KEY and TIDELINE_CLOUD_SECRET_KEY: a project authenticates with the key pair or with the bearer token, not both (unset one kind)',
    );
    expect(error.message).not.toContain(SECRET_PART);
    const half = errorOf(() => loadWorkerConfig({ env: { ...envToken, TIDELINE_CLOUD_SECRET_KEY: 'SK' } }));
    expect(half.message).toContain(
      'TIDELINE_CLOUD_BEARER_TOKEN is set together with TIDELINE_CLOUD_SECRET_KEY:',
    );
  });

  test('without TIDELINE_CLOUD_PROJECT_ID is an error saying so', () => {
    const error = errorOf(() =>
      loadWorkerConfig({ env: { TIDELINE_CLOUD_URL: URL, TIDELINE_CLOUD_BEARER_TOKEN: TOKEN } }),
    );
    expect(error.message).toContain(
      'TIDELINE_CLOUD_PROJECT_ID must be set too (the bearer token is for one project)',
    );
    expect(error.message).not.toContain(SECRET_PART);
  });

  test('a project id alone names both ways to complete it', () => {
    const error = errorOf(() =>
      loadWorkerConfig({ env: { TIDELINE_CLOUD_URL: URL, TIDELINE_CLOUD_PROJECT_ID: 'p' } }),
    );
    expect(error.message).toContain(
      'TIDELINE_CLOUD_ACCESS_KEY and TIDELINE_CLOUD_SECRET_KEY must be set too (the three TIDELINE_CLOUD_* credentials go together, or TIDELINE_CLOUD_BEARER_TOKEN instead of the key pair)',
    );
  });

  test('an invalid token from the environment is named by its place, not quoted', () => {
    const error = errorOf(() =>
      loadWorkerConfig({ env: { ...envToken, TIDELINE_CLOUD_BEARER_TOKEN: `${TOKEN} x` } }),
    );
    expect(error.message).toMatch(/cloud\.projects\.projbbbbbb\.bearerToken: must be printable ASCII/);
    expect(error.message).not.toContain(SECRET_PART);
  });
});

describe('the token never shows', () => {
  test('in the config printed, inspected or serialised', () => {
    const config = loadWorkerConfig({ env: envToken });
    const shown = [
      inspect(config, { depth: 10 }),
      JSON.stringify(config),
      inspect(describeWorkerConfig(config), { depth: 10 }),
      String(config.cloud.projects.get('projbbbbbb')?.bearerToken),
      inspect(config.cloud.projects, { depth: 10, showHidden: true }),
    ];
    for (const text of shown) expect(text).not.toContain(SECRET_PART);
    expect(inspect(config)).toContain('projbbbbbb');
  });

  test('in the worker log: the logger built from projectSecrets scrubs it from lines and metadata', () => {
    const config = loadWorkerConfig({ env: envToken });
    const lines: { message: string; meta: LogMetadata | undefined }[] = [];
    const inner = {
      log: (_level: LogLevel, message: string, meta?: LogMetadata) => lines.push({ message, meta }),
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    };
    const logger = createRedactingLogger(inner, projectSecrets(config.cloud));
    logger.warn(`request failed: Authorization: Bearer ${TOKEN}`, {
      error: new Error(`echo ${encodeURIComponent(TOKEN)}`),
      header: `Bearer ${TOKEN}`,
    });
    const printed = inspect(lines, { depth: 10 });
    expect(printed).not.toContain(SECRET_PART);
    expect(printed).toContain('Bearer [REDACTED]');
  });

  // File modes mean nothing on Windows (skipped there, visibly).
  const onPosix = process.platform === 'win32' ? test.skip : test;
  onPosix('a config file holding a token and open to others gets the permission warning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tideline-bearer-'));
    try {
      const path = join(dir, 'worker.json');
      writeFileSync(
        path,
        JSON.stringify({ cloud: { baseUrl: URL, projects: { p1: { bearerToken: TOKEN } } } }),
      );
      chmodSync(path, 0o644);
      const notices: string[] = [];
      loadWorkerConfig({ env: { TIDELINE_CONFIG: path }, notice: (line) => notices.push(line) });
      expect(notices).toEqual([
        `tideline: warning: config file ${path} (it holds a Cloud API bearer token) is readable by other users; run: chmod 600 ${path}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
