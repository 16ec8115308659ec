// docker-compose.yml and the Dockerfile cannot run here (no Docker engine), so this test keeps
// them honest: the compose file's structure (services, images or builds, profiles, dependencies,
// volumes, configs, loopback-only ports), and — with compose's variable substitution applied — that
// the worker's environment is one the worker really reads (it loads into a valid configuration),
// that the local cloud's flags and config are ones the local cloud accepts, and that the
// Dockerfile builds from files that exist and are not excluded from the build context.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { findCommand } from '../../cli/command-registry';
import { CODEC_SERVER_SPEC } from '../../cli/commands/codec-server';
import { LOCAL_CLOUD_FLAGS } from '../../local-cloud/cli-options';
import { parseConfig } from '../../local-cloud/config';
import { loadWorkerConfig } from '../../worker/config';
import { loadTemporalSettings } from '../../worker/connection';
import { loadEncryptionKeys } from '../../worker/key-store';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  image?: string;
  build?: string | { context: string };
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  command?: string[] | string;
  entrypoint?: string[];
  ports?: string[];
  volumes?: string[];
  configs?: { source: string; target: string }[];
  healthcheck?: { test: string[] };
  network_mode?: string;
  [key: string]: unknown;
}
interface ComposeFile {
  name?: string;
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, { content?: string; file?: string }>;
  [key: string]: unknown;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
const services = Object.entries(compose.services);

/** Compose's substitution: ${VAR}, ${VAR:-default}, ${VAR:?error} (missing → throws), $$ → $. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g,
    (match, name: string | undefined, op?: string, arg?: string) => {
      if (match === '$$') return '$';
      const value = env[name as string];
      if (value !== undefined && value !== '') return value;
      if (op === ':-') return arg ?? '';
      if (op === ':?') throw new Error(`required variable ${name} is not set: ${arg}`);
      return '';
    },
  );
}

function environmentOf(service: Service, env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [name, interpolate(String(value), env)]),
  );
}

/**
 * The repository file behind the config `TIDELINE_CONFIG` names in the container: it must be mounted
 * there from a compose config file, at the path it has under the image's WORKDIR (/app), so that
 * its relative paths (../runbooks) resolve in the repository as they do in the image.
 */
function mountedConfig(service: Service, env: Record<string, string>): string {
  const target = env.TIDELINE_CONFIG ?? '';
  expect(target).toMatch(/^\/app\//);
  const mount = service.configs?.find((config) => config.target === target);
  expect(mount).toBeDefined();
  const file = compose.configs?.[mount!.source]?.file ?? '';
  expect(path.posix.normalize(file)).toBe(path.posix.relative('/app', target));
  expect(existsSync(path.join(ROOT, file))).toBe(true);
  // The image's runtime stage works in /app and holds the shipped runbooks at /app/runbooks.
  const runtimeStage =
    read('Dockerfile')
      .split(/^FROM /m)
      .at(-1) ?? '';
  expect(runtimeStage).toMatch(/^WORKDIR \/app$/m);
  expect(runtimeStage).toMatch(/^COPY runbooks \.\/runbooks$/m);
  return path.join(ROOT, file);
}

const KNOWN_SERVICE_KEYS = new Set([
  'image',
  'build',
  'profiles',
  'depends_on',
  'environment',
  'command',
  'entrypoint',
  'ports',
  'volumes',
  'configs',
  'healthcheck',
  'network_mode',
  'restart',
  'stop_grace_period',
]);
const KEYS = 'k1:' + Buffer.alloc(32, 7).toString('base64');

describe('docker-compose.yml', () => {
  test('has the Temporal server on PostgreSQL, the Web UI, the worker, and the local cloud as a profile', () => {
    expect(compose.services.postgresql?.image).toMatch(/^postgres:\d+/);
    expect(compose.services.temporal?.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(compose.services.temporal?.environment).toMatchObject({
      DB: 'postgres12',
      POSTGRES_SEEDS: 'postgresql',
    });
    expect(compose.services['temporal-ui']?.image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
    expect(compose.services['temporal-ui']?.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(compose.services['tideline-worker']?.build).toBe('.');
    expect(compose.services['local-cloud']?.profiles).toEqual(['local-cloud']);
    expect(compose.services['tideline-worker-development']?.profiles).toEqual(['development']);
    for (const [name, service] of services) {
      if (name !== 'local-cloud' && name !== 'tideline-worker-development')
        expect({ name, profiles: service.profiles }).toEqual({ name, profiles: undefined });
    }
  });

  test('every service is well-formed: known keys, pinned images or a build, existing dependencies', () => {
    for (const key of Object.keys(compose))
      expect(
        ['name', 'services', 'volumes', 'configs', 'networks'].includes(key) || key.startsWith('x-'),
      ).toBe(true);
    for (const [name, service] of services) {
      for (const key of Object.keys(service))
        expect({ name, key, known: KNOWN_SERVICE_KEYS.has(key) }).toEqual({ name, key, known: true });
      expect(service.image !== undefined || service.build !== undefined).toBe(true);
      if (service.build === undefined)
        expect({ name, image: service.image }).toEqual({
          name,
          image: expect.stringMatching(/^[\w./-]+:[\w.-]+$/),
        });
      expect(service.image ?? '').not.toMatch(/:latest$/);
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect({ name, target, exists: target in compose.services }).toEqual({ name, target, exists: true });
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy')
          expect(compose.services[target]?.healthcheck?.test.length).toBeGreaterThan(0);
        if (condition === 'service_completed_successfully')
          expect(compose.services[target]?.restart).not.toBe('unless-stopped');
      }
      // Published ports are for this machine only (the Web UI has no login).
      for (const port of service.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (!source.startsWith('.') && !source.startsWith('/'))
          expect(Object.keys(compose.volumes ?? {})).toContain(source);
      }
      for (const config of service.configs ?? [])
        expect(Object.keys(compose.configs ?? {})).toContain(config.source);
      if (service.network_mode?.startsWith('service:'))
        expect(compose.services).toHaveProperty(service.network_mode.slice(8));
    }
  });

  test('the worker environment is what the worker reads, and it loads into a valid configuration', () => {
    const worker = compose.services['tideline-worker']!;
    expect(() => environmentOf(worker, {})).toThrow(/TIDELINE_ENCRYPTION_KEYS/); // required: no throwaway key in a container
    const env = environmentOf(worker, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    const workerSources = [
      'worker/config-schema.ts',
      'worker/config.ts',
      'worker/key-store.ts',
      'worker/shared-settings.ts',
    ]
      .map(read)
      .join('\n');
    for (const name of Object.keys(env).filter((n) => n.startsWith('TIDELINE_'))) {
      expect({ name, read: workerSources.includes(`env.${name}`) }).toEqual({ name, read: true });
    }
    const config = loadWorkerConfig({ env: { ...env, TIDELINE_CONFIG: mountedConfig(worker, env) } });
    expect(config.taskQueue).toBe('tideline');
    expect(config.metricsAddress).toBe('0.0.0.0:9464');
    expect(config.cloud.baseUrl).toBe('http://127.0.0.1:8787/public/api/v1');
    expect([...config.cloud.projects.keys()]).toEqual([env.TIDELINE_CLOUD_PROJECT_ID]);
    expect(loadTemporalSettings({ env })).toMatchObject({
      connection: { address: 'temporal:7233' },
      namespace: 'default',
    });
    expect(loadEncryptionKeys({ env, notice: () => undefined })).toMatchObject({ source: 'env' });
    // Production settings replace the rehearsal defaults.
    const productionEnv = environmentOf(worker, {
      TIDELINE_ENCRYPTION_KEYS: KEYS,
      TIDELINE_CLOUD_URL: 'https://api.example.com/public/api/v1',
      TIDELINE_CLOUD_PROJECT_ID: 'd1k5vk7hf2',
      TIDELINE_CLOUD_ACCESS_KEY: 'AK',
      TIDELINE_CLOUD_SECRET_KEY: 'SK-production',
    });
    const production = loadWorkerConfig({
      env: { ...productionEnv, TIDELINE_CONFIG: mountedConfig(worker, productionEnv) },
    });
    expect(production.cloud.baseUrl).toBe('https://api.example.com/public/api/v1');
    expect(production.cloud.defaultProjectId).toBe('d1k5vk7hf2');
  });

  test('the worker runs with its catalogue: the mounted config, loaded by the worker, holds the shipped runbooks', () => {
    const worker = compose.services['tideline-worker']!;
    const env = environmentOf(worker, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    const config = loadWorkerConfig({ env: { ...env, TIDELINE_CONFIG: mountedConfig(worker, env) } });
    expect(config.catalog?.mode).toBe('catalog');
    const shipped = readdirSync(path.join(ROOT, 'runbooks'))
      .filter((file) => /\.yaml$/.test(file) && !/\.(test|mutants|state)\.yaml$/.test(file))
      .map((file) => `../runbooks/${file}`) // as the worker shows them: relative to the config file
      .sort();
    expect(shipped.length).toBeGreaterThan(5);
    expect(config.catalog?.list.map((entry) => entry.file).sort()).toEqual(shipped);
    expect(config.catalog?.entries.size).toBe(shipped.length);
    // The environment still gives the Cloud API settings, over the file.
    expect([...config.cloud.projects.keys()]).toEqual([env.TIDELINE_CLOUD_PROJECT_ID]);
  });

  test('a worker without a catalogue runs only when asked for by name, on a task queue of its own', () => {
    const worker = compose.services['tideline-worker']!;
    const development = compose.services['tideline-worker-development']!;
    expect(development.profiles).toEqual(['development']);
    const env = environmentOf(development, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    const config = loadWorkerConfig({ env: { ...env, TIDELINE_CONFIG: mountedConfig(development, env) } });
    expect(config.catalog?.mode).toBe('development');
    const workerEnv = environmentOf(worker, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    expect(config.taskQueue).toBe('tideline-development');
    expect(config.taskQueue).not.toBe(workerEnv.TIDELINE_TASK_QUEUE);
    // The same Temporal, keys and Cloud API as the catalogue worker; its metrics port is not shared.
    for (const name of Object.keys(workerEnv).filter(
      (n) => !['TIDELINE_TASK_QUEUE', 'TIDELINE_CONFIG', 'TIDELINE_METRICS_ADDRESS'].includes(n),
    ))
      expect({ name, value: env[name] }).toEqual({ name, value: workerEnv[name] });
    expect(env.TIDELINE_METRICS_ADDRESS).toBeUndefined();
    expect(development.network_mode).toBe('service:tideline-worker');
  });

  test('the local cloud runs with flags and a config it accepts, with the key pair the worker uses, on its loopback', () => {
    const cloud = compose.services['local-cloud']!;
    expect(cloud.network_mode).toBe('service:tideline-worker');
    const command = cloud.command as string[];
    expect(command.slice(0, 2)).toEqual(['node', 'dist/local-cloud/main.js']);
    expect(existsSync(path.join(ROOT, 'local-cloud', 'main.ts'))).toBe(true);
    // main.ts parses its flags with the shared LOCAL_CLOUD_FLAGS (local-cloud/cli-options.ts).
    expect(read('local-cloud/main.ts')).toContain('...LOCAL_CLOUD_FLAGS');
    for (const flag of command.filter((word) => word.startsWith('--'))) {
      expect({ flag, accepted: Object.hasOwn(LOCAL_CLOUD_FLAGS, flag.slice(2)) }).toEqual({
        flag,
        accepted: true,
      });
    }
    const port = command[command.indexOf('--port') + 1];
    const configTarget = command[command.indexOf('--config') + 1];
    const mounted = cloud.configs?.find((c) => c.target === configTarget);
    expect(mounted).toBeDefined();
    const content = interpolate(compose.configs?.[mounted!.source]?.content ?? '', {});
    const localCloudConfig = parseConfig(parse(content));
    const workerEnv = environmentOf(compose.services['tideline-worker']!, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    expect(localCloudConfig.projects).toEqual([
      expect.objectContaining({
        id: workerEnv.TIDELINE_CLOUD_PROJECT_ID,
        access_key: workerEnv.TIDELINE_CLOUD_ACCESS_KEY,
        secret_key: workerEnv.TIDELINE_CLOUD_SECRET_KEY,
      }),
    ]);
    expect(workerEnv.TIDELINE_CLOUD_URL).toBe(`http://127.0.0.1:${port}/public/api/v1`);
  });

  test("the codec server decrypts for the Web UI: the UI's endpoint, origin and namespace, the worker's keys", () => {
    const codec = compose.services['codec-server']!;
    const ui = compose.services['temporal-ui']!;
    const command = (codec.command as string[]).map((word) => interpolate(word, {}));
    expect(command.slice(0, 3)).toEqual(['node', 'bin/tideline.js', 'codec-server']);
    expect(existsSync(path.join(ROOT, 'bin', 'tideline.js'))).toBe(true);
    expect(findCommand('codec-server')?.declaration.load().spec).toBe(CODEC_SERVER_SPEC);
    for (const flag of command.filter((word) => word.startsWith('--'))) {
      const accepted = Object.hasOwn(CODEC_SERVER_SPEC.options, flag.slice(2));
      expect({ flag, accepted }).toEqual({ flag, accepted: true });
    }
    const flag = (name: string): string | undefined => command[command.indexOf(name) + 1];
    const listenPort = flag('--listen')?.split(':')[1];
    expect(codec.ports).toEqual([`127.0.0.1:${listenPort}:${listenPort}`]);
    // The browser calls the endpoint: the published port on loopback, under /codec.
    const uiEnv = environmentOf(ui, {});
    expect(uiEnv.TEMPORAL_CODEC_ENDPOINT).toBe(`http://127.0.0.1:${listenPort}/codec`);
    expect(uiEnv.TEMPORAL_CODEC_INCLUDE_CREDENTIALS).toBe('true');
    const uiPort = ui.ports?.[0]?.split(':')[1];
    expect(flag('--cors-origin')).toBe(`http://127.0.0.1:${uiPort}`);
    const workerEnv = environmentOf(compose.services['tideline-worker']!, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    expect(flag('--namespace')).toBe(workerEnv.TEMPORAL_NAMESPACE);
    expect(() => environmentOf(codec, {})).toThrow(/TIDELINE_ENCRYPTION_KEYS/);
    const env = environmentOf(codec, { TIDELINE_ENCRYPTION_KEYS: KEYS });
    expect(env.TIDELINE_ENCRYPTION_KEYS).toBe(workerEnv.TIDELINE_ENCRYPTION_KEYS);
    const sources = ['cli/commands/codec-server.ts', 'worker/key-store.ts'].map(read).join('\n');
    for (const name of Object.keys(env)) {
      expect({ name, read: sources.includes(`env.${name}`) }).toEqual({ name, read: true });
    }
  });

  test('the one-shot jobs escape their shell variables from compose ($$)', () => {
    for (const name of ['temporal-schema', 'temporal-namespace']) {
      const script = (compose.services[name]?.command as string[])[0] ?? '';
      // A single `$` followed by a name or brace would be substituted by compose, not the shell.
      expect(script.replace(/\$\$/g, '')).not.toMatch(/\$[{A-Za-z(]/);
    }
    const namespaceJob = compose.services['temporal-namespace']!;
    expect(namespaceJob.environment?.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(compose.services['tideline-worker']?.depends_on).toEqual({
      'temporal-namespace': { condition: 'service_completed_successfully' },
    });
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  test('node 20, npm ci, npm run build, and the worker as the command', () => {
    expect(dockerfile).toMatch(/^FROM node:20[\w.-]* AS build$/m);
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build\b/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/worker\/main\.js"\]$/m);
    expect(existsSync(path.join(ROOT, 'worker', 'main.ts'))).toBe(true);
    expect((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.build).toContain(
      'tsconfig.build.json',
    );
  });

  test('copies only files that exist and are in the build context', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) =>
      (match[1] ?? '').split(/\s+/),
    );
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
      expect({ source, ignored: ignored.includes(source) }).toEqual({ source, ignored: false });
    }
    // Everything the build compiles is copied in: the folders of tsconfig.build.json.
    const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
    for (const folder of build.include) expect(sources).toContain(folder);
    for (const heavy of ['node_modules', 'dist', '.git', '.tools']) expect(ignored).toContain(heavy);
  });
});
