// startLocalCloud(): the programmatic entry of the local cloud (the CLI in main.ts wraps it).
import { randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { z } from 'zod';
import { registerApi, type AnswerObserver } from './api';
import { Authenticator } from './auth';
import { systemClock, type Clock } from './clock';
import {
  loadConfigFile,
  parseConfig,
  type Durations,
  type LogsConfig,
  type LocalCloudConfig,
  type LocalCloudConfigInput,
} from './config';
import { registerControlApi } from './control-api';
import type { Dialect } from './dialect';
import { generateControlToken } from './control-guard';
import { FaultRuleInput } from './fault-schema';
import { FaultInjector, type FaultRuleView } from './faults';
import { API_PREFIX, CONTROL_PREFIX, createApp } from './http-layer';
import type { HttpLimits } from './http-limits';
import { IdFactory, generateAccessKey, generateSecretKey } from './ids';
import { Pace } from './lifecycle';
import { registerDurableReplies } from './durable-replies';
import { PasswordBook } from './passwords';
import { DurableStateFile, openStateFile } from './persistence';
import { SeededRandom, deriveSeed } from './random';
import type { PersistedState, ProjectRecord } from './state';
import { RequestStats, type RequestLogEntry, type StatsView } from './stats';
import { Store } from './store';
import type { World } from './world';

export type { AnswerObserver, ApiAnswer } from './api';
export type { Dialect } from './dialect';

export interface LocalCloudOptions {
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /** Port to bind; default 0 (any free port). */
  port?: number;
  /** Inline configuration (same schema as the config file). Ignored when `configFile` is given. */
  config?: LocalCloudConfigInput;
  /** YAML or JSON config file. */
  configFile?: string;
  /** Overrides the config's timeScale. */
  timeScale?: number;
  /** Overrides the config's seed. */
  seed?: number;
  /** Overrides the config's dialect: spec.md's answers (`seed`) or the real API's newer ones. */
  dialect?: Dialect;
  /** Called with every answer of a catalogue route, successes and errors (api.ts). */
  onAnswer?: AnswerObserver;
  /** Merged over the config's durations (milliseconds before scaling). */
  durations?: Partial<z.input<typeof Durations>>;
  /** Merged over the config's log generation settings. */
  logs?: Partial<LogsConfig>;
  /** Added after the config's fault rules. */
  faults?: FaultRuleInput[];
  /** Persist state to this file (every change before its answer) and reload it on start. */
  stateFile?: string;
  /** Time source; a ManualClock makes lifecycles step only when told. */
  clock?: Clock;
  /** Serve the control API (/__sim); default true. `false` (`--no-control`) makes it a 404. */
  control?: boolean;
  /** The control API's bearer token; default: the config's `controlToken`, else a new random one. */
  controlToken?: string;
  /** Request timeouts and body size (http-limits.ts defaults). */
  http?: Partial<HttpLimits>;
}

export interface ProjectCredentials {
  id: string;
  name: string;
  access_key: string;
  secret_key: string;
}

export interface Inventory {
  services: { name: string; replicaSets: string[] }[];
  /** Peerings by the peer VPC's id. */
  vpcs: { name: string; peerings: string[] }[];
}

export interface LocalCloud {
  /** Base URL of the API, e.g. `http://127.0.0.1:PORT/public/api/v1`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/__sim` (a 404 when the control API is off) */
  readonly controlUrl: string;
  /**
   * What the control API wants in `Authorization: Bearer …`; null when it is off. Not enumerable,
   * so inspecting or spreading the handle does not show it.
   */
  readonly controlToken: string | null;
  readonly projects: readonly ProjectCredentials[];
  readonly seed: number;
  readonly timeScale: number;
  readonly dialect: Dialect;
  readonly durations: Readonly<Durations>;
  addFaults(rules: FaultRuleInput | FaultRuleInput[]): FaultRuleView[];
  listFaults(): FaultRuleView[];
  clearFaults(): void;
  stats(): StatsView;
  /** The newest API requests (up to 200,000): operation, project, status, arrival and answer time. */
  requestLog(): RequestLogEntry[];
  /** Clears the counts and the request log. */
  resetStats(): void;
  /**
   * Whether a service's password is `candidate` (compared as digests, never shown); undefined when
   * this process never saw the password set (e.g. a service restored from a state file).
   */
  passwordMatches(serviceId: string, candidate: string): boolean | undefined;
  /** What a project holds now, by name: services with their replica sets, VPCs with their peerings. */
  inventory(projectId: string): Inventory;
  /** Writes the state file now (no-op without one). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

async function resolveConfig(options: LocalCloudOptions): Promise<LocalCloudConfig> {
  const base = options.configFile
    ? await loadConfigFile(options.configFile)
    : parseConfig(options.config ?? {});
  return parseConfig(
    {
      ...base,
      ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
      durations: { ...base.durations, ...options.durations },
      logs: { ...base.logs, ...options.logs },
      faults: [...base.faults, ...(options.faults ?? [])],
    },
    'options',
  );
}

/** Projects from the config (reusing ids and keys the state file remembers), else from the state file, else one new. */
function resolveProjects(
  config: LocalCloudConfig,
  saved: PersistedState | undefined,
  ids: IdFactory,
): ProjectRecord[] {
  const remembered = saved?.projects ?? [];
  if (config.projects.length === 0) {
    if (remembered.length > 0) return remembered;
    return [
      {
        id: ids.shortId(),
        name: 'default',
        access_key: generateAccessKey(),
        secret_key: generateSecretKey(),
      },
    ];
  }
  return config.projects.map((project) => {
    const previous = remembered.find((p) =>
      project.id !== undefined ? p.id === project.id : p.name === project.name,
    );
    return {
      id: project.id ?? previous?.id ?? ids.shortId(),
      name: project.name,
      access_key: project.access_key ?? previous?.access_key ?? generateAccessKey(),
      secret_key: project.secret_key ?? previous?.secret_key ?? generateSecretKey(),
      bearer_token: project.bearer_token,
    };
  });
}

/**
 * A project's key pair as handed to callers. The secret is an ordinary field (clients need it),
 * but `util.inspect` (console.log, test failure output) shows it redacted.
 */
function credentials(project: ProjectRecord): ProjectCredentials {
  const { id, name, access_key, secret_key } = project;
  const result: ProjectCredentials = { id, name, access_key, secret_key };
  Object.defineProperty(result, inspect.custom, {
    enumerable: false,
    value: () => ({ id, name, access_key, secret_key: '[redacted]' }),
  });
  return result;
}

function urlHost(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}

export async function startLocalCloud(options: LocalCloudOptions = {}): Promise<LocalCloud> {
  const config = await resolveConfig(options);
  const seed = config.seed ?? randomInt(0, 2 ** 32 - 1);
  const clock = options.clock ?? systemClock;
  const saved = options.stateFile ? await openStateFile(options.stateFile) : undefined;

  const store = new Store(clock);
  const idRandom = new SeededRandom(deriveSeed(seed, 'ids'));
  if (saved) idRandom.setState(saved.idRandomState);
  const ids = new IdFactory(idRandom, (id) => store.isIdUsed(id));
  if (saved) store.restoreResources(saved);
  const projects = resolveProjects(config, saved, ids);
  for (const project of projects) store.addProject(project);

  const world: World = {
    store,
    ids,
    clock,
    pace: new Pace(config.durations, config.timeScale),
    defaultRegion: config.defaultRegion,
    logs: config.logs,
    passwords: new PasswordBook(),
  };
  const faults = new FaultInjector(new SeededRandom(deriveSeed(seed, 'faults')), clock);
  faults.add(config.faults);
  const stats = new RequestStats();
  const closing = new AbortController();

  const writer = options.stateFile
    ? new DurableStateFile(
        options.stateFile,
        () => {
          const live = store.snapshot();
          const retiredIds = store.retiredIds(live);
          return {
            version: 1,
            savedAt: new Date().toISOString(),
            idRandomState: idRandom.getState(),
            retiredIds,
            ...live,
          };
        },
        (error) => process.emitWarning(`local cloud: ${error.message}`),
      )
    : undefined;
  if (writer) store.onChange(() => writer.noteChange());

  const app = createApp(options.http);
  // First of the onSend hooks: no answer leaves before the state it reflects is on disk.
  if (writer) registerDurableReplies(app, writer);
  let url = '';
  registerApi(app, {
    world,
    dialect: config.dialect,
    onAnswer: options.onAnswer,
    auth: new Authenticator(projects),
    faults,
    stats,
    closing: closing.signal,
  });
  const controlToken =
    options.control === false
      ? null
      : (options.controlToken ?? config.controlToken ?? generateControlToken());
  if (controlToken !== null) {
    const info = () => ({ url, seed, timeScale: config.timeScale });
    registerControlApi(app, { world, faults, stats, info, token: controlToken });
  }
  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const origin = `http://${urlHost(app.server.address() as AddressInfo)}:${(app.server.address() as AddressInfo).port}`;
  url = origin + API_PREFIX;
  // Persist at once, so generated projects and keys survive a restart even before any change.
  await writer?.flush();

  let closed: Promise<void> | undefined;
  const cloud: Omit<LocalCloud, 'controlToken'> = {
    url,
    origin,
    controlUrl: origin + CONTROL_PREFIX,
    projects: projects.map(credentials),
    seed,
    timeScale: config.timeScale,
    dialect: config.dialect,
    durations: config.durations,
    addFaults: (rules) =>
      faults.add((Array.isArray(rules) ? rules : [rules]).map((rule) => FaultRuleInput.parse(rule))),
    listFaults: () => faults.list(),
    clearFaults: () => faults.clear(),
    stats: () => stats.view(),
    requestLog: () => stats.requestLog(),
    resetStats: () => stats.reset(),
    passwordMatches: (serviceId, candidate) => world.passwords.matches(serviceId, candidate),
    inventory: (projectId) => ({
      services: store.services(projectId).map((service) => ({
        name: service.name,
        replicaSets: service.replicaSets.map((set) => set.name),
      })),
      vpcs: store.vpcs(projectId).map((vpc) => ({
        name: vpc.name,
        peerings: vpc.peerings.map((peering) => peering.peerVpcId),
      })),
    }),
    flush: async () => writer?.flush(),
    close: () => {
      closed ??= (async () => {
        closing.abort();
        await app.close();
        await writer?.flush();
      })();
      return closed;
    },
  };
  return Object.defineProperty(cloud, 'controlToken', {
    value: controlToken,
    enumerable: false,
  }) as LocalCloud;
}
