// The settings the CLI and the worker share resolve in one place (worker/shared-settings.ts) with
// one precedence, and their defaults come from SHARED_DEFAULTS alone; one builder
// (worker/connection.ts) turns them into connection options for the worker and for clients.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { isCliError } from '../../cli/errors';
import { resolveSettings } from '../../cli/settings';
import { loadWorkerConfig } from '../../worker/config';
import { DEFAULT_TASK_QUEUE } from '../../worker/config-schema';
import {
  clientConnectionOptions,
  DEFAULT_NAMESPACE,
  DEFAULT_TEMPORAL_ADDRESS,
  localConnectionSettings,
  temporalConnectionSettings,
  TemporalSettingsError,
} from '../../worker/connection';
import {
  resolveConfigFile,
  resolveSharedSettings,
  SHARED_DEFAULTS,
  SharedFileSchema,
  sharedSettingsEnvironment,
} from '../../worker/shared-settings';

const NO_PROFILE = { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' };
const FILE = { taskQueue: 'file-q', temporal: { address: 'file:7233', namespace: 'file-ns' } };
const ENV = { TEMPORAL_ADDRESS: 'env:7233', TEMPORAL_NAMESPACE: 'env-ns', TIDELINE_TASK_QUEUE: 'env-q' };
const FLAGS = { address: 'flag:7233', namespace: 'flag-ns', taskQueue: 'flag-q' };
const CLOUD = {
  TIDELINE_CLOUD_URL: 'https://api.example.com/v1',
  TIDELINE_CLOUD_PROJECT_ID: 'p1',
  TIDELINE_CLOUD_ACCESS_KEY: 'ak',
  TIDELINE_CLOUD_SECRET_KEY: 'sk',
};

describe('resolveSharedSettings: flags > environment > config file > defaults', () => {
  test('each level wins over the ones below it, and says where the value came from', () => {
    expect(resolveSharedSettings({ env: ENV, flags: FLAGS, file: FILE })).toEqual({
      address: 'flag:7233',
      namespace: 'flag-ns',
      taskQueue: 'flag-q',
      sources: { address: 'flag', namespace: 'flag', taskQueue: 'flag' },
    });
    expect(resolveSharedSettings({ env: ENV, file: FILE })).toMatchObject({
      address: 'env:7233',
      taskQueue: 'env-q',
      sources: { address: 'env', namespace: 'env', taskQueue: 'env' },
    });
    expect(resolveSharedSettings({ env: {}, file: FILE })).toMatchObject({
      address: 'file:7233',
      namespace: 'file-ns',
      taskQueue: 'file-q',
      sources: { address: 'config', namespace: 'config', taskQueue: 'config' },
    });
  });

  test('empty flags and variables count as unset', () => {
    const env = { TEMPORAL_ADDRESS: '', TIDELINE_TASK_QUEUE: '' };
    expect(resolveSharedSettings({ env, flags: { address: '' }, file: FILE })).toMatchObject({
      address: 'file:7233',
      taskQueue: 'file-q',
    });
  });

  test('without any: the task queue default; address and namespace left to the profile, then the defaults', () => {
    expect(resolveSharedSettings({ env: {} })).toEqual({
      address: undefined,
      namespace: undefined,
      taskQueue: SHARED_DEFAULTS.taskQueue,
      sources: { address: 'default', namespace: 'default', taskQueue: 'default' },
    });
    const settings = temporalConnectionSettings({ env: NO_PROFILE });
    expect(settings.connection.address).toBe(SHARED_DEFAULTS.address);
    expect(settings.namespace).toBe(SHARED_DEFAULTS.namespace);
  });

  test('the config file: --config, else TIDELINE_CONFIG, relative to the working directory', () => {
    expect(resolveConfigFile({ TIDELINE_CONFIG: 'env.yaml' }, 'flag.yaml', '/w')).toBe('/w/flag.yaml');
    expect(resolveConfigFile({ TIDELINE_CONFIG: 'env.yaml' }, undefined, '/w')).toBe('/w/env.yaml');
    expect(resolveConfigFile({ TIDELINE_CONFIG: '' }, undefined, '/w')).toBeUndefined();
  });

  test('a child process given the environment resolves the same settings without flags', () => {
    const parent = resolveSharedSettings({ env: {}, flags: FLAGS, file: FILE });
    const env = sharedSettingsEnvironment({}, parent, '/w/tideline.yaml');
    expect(env.TIDELINE_CONFIG).toBe('/w/tideline.yaml');
    expect(resolveSharedSettings({ env, file: FILE })).toMatchObject({
      address: parent.address,
      namespace: parent.namespace,
      taskQueue: parent.taskQueue,
    });
  });

  test('the shared file keys: blank values and unknown temporal keys are refused', () => {
    expect(SharedFileSchema.safeParse({ taskQueue: '  ' }).success).toBe(false);
    expect(SharedFileSchema.safeParse({ temporal: { adress: 'x' } }).success).toBe(false);
    expect(SharedFileSchema.safeParse({ cloud: { anything: 1 }, ...FILE }).success).toBe(true);
  });
});

describe('one source of defaults', () => {
  test('the CLI, the worker and the connection builder use SHARED_DEFAULTS', () => {
    expect(DEFAULT_TASK_QUEUE).toBe(SHARED_DEFAULTS.taskQueue);
    expect(DEFAULT_TEMPORAL_ADDRESS).toBe(SHARED_DEFAULTS.address);
    expect(DEFAULT_NAMESPACE).toBe(SHARED_DEFAULTS.namespace);
    expect(localConnectionSettings('127.0.0.1:1').namespace).toBe(SHARED_DEFAULTS.namespace);
    expect(loadWorkerConfig({ env: CLOUD }).taskQueue).toBe(SHARED_DEFAULTS.taskQueue);
    expect(resolveSettings({ globals: { json: false }, env: {}, cwd: '/' }).taskQueue).toBe(
      SHARED_DEFAULTS.taskQueue,
    );
  });

  test('the CLI and the worker read the same file and environment to the same task queue', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-shared-'));
    try {
      const file = path.join(dir, 'tideline.yaml');
      writeFileSync(file, 'taskQueue: from-file\ntemporal: { namespace: ops }\n', { mode: 0o600 });
      for (const env of [
        { TIDELINE_CONFIG: file },
        { TIDELINE_CONFIG: file, TIDELINE_TASK_QUEUE: 'env-q' },
      ]) {
        const cli = resolveSettings({ globals: { json: false }, env, cwd: dir });
        const worker = loadWorkerConfig({ env: { ...CLOUD, ...env } });
        expect(worker.taskQueue).toBe(cli.taskQueue);
        expect(worker.temporal.namespace).toBe(cli.namespace);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the connection builder', () => {
  test('tideline’s address and namespace go over the TEMPORAL_* variables; TLS and key stay', () => {
    const settings = temporalConnectionSettings({
      env: { ...NO_PROFILE, TEMPORAL_ADDRESS: 'env:7233', TEMPORAL_API_KEY: 'key-secret' },
      address: 'flag:7233',
      namespace: 'flag-ns',
    });
    expect(settings.connection).toMatchObject({ address: 'flag:7233', apiKey: 'key-secret', tls: true });
    expect(settings.namespace).toBe('flag-ns');
    expect(`${inspect(settings)} ${JSON.stringify(settings)}`).not.toContain('key-secret');
  });

  test('client options are the same options with the client-only extras on top', () => {
    const settings = temporalConnectionSettings({ env: { ...NO_PROFILE, TEMPORAL_API_KEY: 'k' } });
    expect(clientConnectionOptions(settings, { connectTimeout: '5s' })).toEqual({
      ...settings.connection,
      connectTimeout: '5s',
    });
  });

  test('a server tideline started is reached by address alone, whatever the profile says', () => {
    const settings = localConnectionSettings('127.0.0.1:7233', 'dev');
    expect(settings.connection).toEqual({ address: '127.0.0.1:7233' });
    expect(settings.namespace).toBe('dev');
  });

  test('an invalid profile file is a TemporalSettingsError; the worker and the CLI keep their codes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-toml-'));
    try {
      writeFileSync(path.join(dir, 'temporal.toml'), '[profile.default\naddress = "x"\n');
      const env = { TEMPORAL_CONFIG_FILE: path.join(dir, 'temporal.toml'), TEMPORAL_API_KEY: 'key-secret' };
      let thrown: unknown;
      try {
        temporalConnectionSettings({ env });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TemporalSettingsError);
      expect((thrown as Error).message).toMatch(/^invalid Temporal connection settings: /);
      expect((thrown as Error).message).not.toContain('key-secret');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('config file problems, as the CLI words them', () => {
  test('a CLI_USAGE error naming the key, never its value', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tideline-cli-file-'));
    try {
      const messageFor = (content: string): string => {
        const file = path.join(dir, 'tideline.yaml');
        writeFileSync(file, content, { mode: 0o600 });
        try {
          resolveSettings({ globals: { json: false, config: file }, env: {}, cwd: dir });
        } catch (error) {
          if (isCliError(error) && error.code === 'CLI_USAGE') return error.message.replace(`${file}: `, '');
          throw error;
        }
        throw new Error('no error');
      };
      expect(messageFor('taskQueue: ""\n')).toBe('config file taskQueue must be a non-empty string');
      expect(messageFor('temporal: { address: 7233 }\n')).toBe(
        'config file temporal.address must be a non-empty string',
      );
      expect(messageFor('temporal: secret-value\n')).toBe(
        'config file temporal must be a mapping (address, namespace)',
      );
      expect(messageFor('temporal: { adress: secret-value }\n')).toBe(
        'config file temporal has unknown keys "adress" (it takes address, namespace)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
