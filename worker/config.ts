// The worker's own configuration: task queue, metrics, and the Cloud API base URL with
// credentials per project. It comes from an optional YAML/JSON file (TIDELINE_CONFIG) with
// environment variables on top — never from workflow input. The keys it shares with the CLI
// (taskQueue, temporal) and their defaults are resolved by shared-settings.ts; the Temporal
// connection is built by connection.ts from them and Temporal's standard variables and profiles.
//
// Config file (YAML or JSON):
//   taskQueue: tideline                      # optional
//   temporal: { address: host:7233, namespace: default }   # optional; TEMPORAL_* env wins
//   tuning: { maxCachedWorkflows: 2000 }     # optional; over DEFAULT_WORKER_TUNING (config-schema.ts)
//   metricsAddress: 127.0.0.1:9464           # optional Prometheus endpoint
//   cloud:
//     baseUrl: https://api.example.com/public/api/v1
//     allowInsecureLoopback: false           # plain http only to 127.0.0.1/localhost
//     timeoutMs: 30000                       # optional per-request deadline
//     defaultProject: d1k5vk7hf2             # optional; default: the only/first project
//     rateLimit: { callsPerSecond: 10, concurrentCalls: 8 }   # optional; per project, all workers
//     projects:
//       d1k5vk7hf2: { accessKey: AK…, secretKey: SK… }   # HTTP Basic (the default)
//       k3m9q2x7za: { bearerToken: eyJ… }                # or Authorization: Bearer (a JWT)
//   approvals:                               # optional; for approve steps with `approvers`
//     keys: { alice: 'ed25519:…' }           # public keys, as `tideline keys create` prints them
//     groups: { dba: [carol, dave] }         # `group:dba` in a runbook
//   notifications:                           # optional; where runs tell about themselves
//     webUiUrl: http://127.0.0.1:8233        # links to the run
//     targets:
//       ops: { type: slack, url: https://hooks…, events: [awaiting-approval, held, failed] }
//       audit: { type: webhook, url: https://…, runbooks: ['provision-*'] }
//   catalog:                                 # the runbooks this worker runs (worker/catalog.ts)
//     runbooks: [./runbooks, { path: ./extra/promote.yaml, sha256: 3f1c… }]
//     development: false                     # true (or no catalog:): any definition runs
//   drift:                                   # optional; state files watched for drift (drift-states.ts)
//     states: [./states]                     # *.state.yaml files or folders; `tideline drift-watch` names one
//     notify: [ops]                          # targets of notifications.targets that hear drift change
//     repairAs: { by: NAME, key: FILE }      # who repairs of rules with repair.auto start as (signed)
//   calendars: { business-hours: { kind: window, timezone: Europe/Berlin, rrule: […], duration: 8h } }
//   policies:                                # CEL rules the worker enforces (dsl/policies.ts)
//     - { name: prod-in-hours, when: "target.environment == 'PROD'", effect: window, calendar: business-hours, outside: wait }
//
// Environment (overrides the file): TIDELINE_TASK_QUEUE, TIDELINE_METRICS_ADDRESS,
// TIDELINE_CLOUD_URL, TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1, and together
// TIDELINE_CLOUD_PROJECT_ID + TIDELINE_CLOUD_ACCESS_KEY + TIDELINE_CLOUD_SECRET_KEY, or
// TIDELINE_CLOUD_PROJECT_ID + TIDELINE_CLOUD_BEARER_TOKEN (one project, which becomes the default).
import { inspect } from 'node:util';
import path from 'node:path';
import type { ApprovalSettings, CatalogSettings, NotificationSettings } from '../activities/deps';
import { loadCatalog, type CatalogEntry } from './catalog';
import { loadDriftStates, type DriftStates } from './drift-states';
import { uncataloguedAutoRepairs } from './drift-repairs';
import { calendarFileReader } from '../dsl/calendar-files';
import {
  compileGovernance,
  describeRules,
  unenforceableRules,
  type CompiledGovernance,
} from '../dsl/policies';
import { DEFAULT_NOTIFICATION_SETTINGS } from '../activities/notify';
import { parseBaseUrl } from '../cloud/base-url';
import type { RateLimit } from '../cloud/rate-limiter';
import {
  applyEnvironment,
  DEFAULT_WORKER_TUNING,
  isRecord,
  issueText,
  WorkerConfigSchema,
  type ParsedWorkerConfig,
  type ProjectCredentials,
  type WorkerTuning,
} from './config-schema';
import { WorkerError } from './errors';
import { warnIfSecretConfigOpen } from './file-permissions';
import { readConfigDocument, resolveConfigFile, resolveSharedSettings } from './shared-settings';

export { DEFAULT_TASK_QUEUE, WorkerConfigSchema } from './config-schema';

/** A project's credentials (its key pair or a bearer token, as `Secret`s) and its API endpoint. */
export type ProjectConfig = ProjectCredentials & {
  projectId: string;
  baseUrl: string;
  /** The project's API budget across all runs and workers; absent: none. */
  rateLimit?: RateLimit | undefined;
};

export interface CloudConfig {
  baseUrl: string;
  allowInsecureLoopback: boolean;
  timeoutMs: number | undefined;
  defaultProjectId: string;
  projects: ReadonlyMap<string, ProjectConfig>;
}

export interface WorkerConfig {
  taskQueue: string;
  metricsAddress: string | undefined;
  cloud: CloudConfig;
  /** Worker capacity settings from the file (`tuning:`), passed to the Temporal worker. */
  tuning: WorkerTuning;
  /** Temporal address and namespace from the file; the TEMPORAL_* environment wins over them. */
  temporal: { address?: string | undefined; namespace?: string | undefined };
  /** The config file read, if any (for messages). */
  configFile: string | undefined;
  /** Approvers' public keys and groups (`approvals:`); empty when not configured. */
  approvals: ApprovalSettings;
  /** Notification targets (`notifications:`); none when not configured. */
  notifications: NotificationSettings;
  /** The runbooks it runs (`catalog:`); absent or `development`: any definition a client sends. */
  catalog?: CatalogSettings & { list: CatalogEntry[] };
  /** Policy rules and calendars (`policies:`, `calendars:`); absent: none. */
  governance?: CompiledGovernance;
  /** The state files it watches for drift (`drift:`); absent: none. */
  drift?: DriftStates;
}

export interface LoadWorkerConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Gives the file's text (tests). Default: read bounded like a runbook (dsl/source-file.ts). */
  readFile?: (file: string) => string;
  /** Receives one-line notices (a config or key file with a secret that others can read). Default: stderr. */
  notice?: (line: string) => void;
  /**
   * Settings laid over the file's content before it is checked, for a worker that brings some of
   * its own (the dev stack's local cloud); it throws a WorkerError for a key it cannot honour.
   */
  override?: (file: Record<string, unknown>, source: string) => Record<string, unknown>;
}

export function configError(problems: string[], source: string): WorkerError {
  const list = problems.map((problem) => `  - ${problem}`).join('\n');
  return new WorkerError(
    'TIDELINE_CONFIG_INVALID',
    `invalid tideline worker configuration (${source}):\n${list}`,
  );
}

/** The file's content, parsed; a failure names the file and the position, never the text. */
function readConfigContent(file: string, readFile: ((file: string) => string) | undefined): unknown {
  const document = readConfigDocument(file, readFile);
  const fail = (why: string): WorkerError =>
    configError([`TIDELINE_CONFIG names ${file}, which ${why}`], file);
  switch (document.kind) {
    case 'parsed':
      return document.content;
    case 'missing':
      throw fail('cannot be read (ENOENT)');
    case 'unreadable':
      throw fail(document.reason);
    case 'invalid-utf8':
      throw fail(`holds invalid UTF-8 at line ${document.line}, column ${document.column}`);
    case 'syntax':
      throw configError([`syntax error${document.at}${document.code ? ` (${document.code})` : ''}`], file);
  }
}

/** Reads and checks the configuration; every problem found is listed in one error. */
export function loadWorkerConfig(options: LoadWorkerConfigOptions = {}): WorkerConfig {
  const env = options.env ?? process.env;
  const configFile = resolveConfigFile(env);
  const source = configFile ? `${configFile} and environment` : 'environment';

  const raw = configFile ? readConfigContent(configFile, options.readFile) : {};
  const notice = options.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (configFile && options.readFile === undefined) warnIfSecretConfigOpen(configFile, raw, notice);
  if (!isRecord(raw)) throw configError(['the file must hold a mapping (taskQueue, cloud, …)'], source);
  const content = options.override === undefined ? raw : options.override(raw, source);

  const problems: string[] = [];
  const merged = WorkerConfigSchema.safeParse(applyEnvironment(content, env, problems));
  if (!merged.success || problems.length > 0) {
    throw configError([...problems, ...(merged.error?.issues.map(issueText) ?? [])], source);
  }
  const data = merged.data;
  // The schema has checked the URLs; parsing again only normalises them.
  const allowInsecureLoopback = data.cloud.allowInsecureLoopback ?? false;
  const baseUrl = parseBaseUrl(data.cloud.baseUrl ?? '', allowInsecureLoopback).href;
  const projects = new Map<string, ProjectConfig>();
  for (const [projectId, credentials] of Object.entries(data.cloud.projects ?? {})) {
    const projectUrl = credentials.baseUrl
      ? parseBaseUrl(credentials.baseUrl, allowInsecureLoopback).href
      : baseUrl;
    const rateLimit = credentials.rateLimit ?? data.cloud.rateLimit;
    projects.set(projectId, { projectId, ...credentials, baseUrl: projectUrl, rateLimit });
  }
  const defaultProjectId = data.cloud.defaultProject ?? [...projects.keys()][0] ?? '';

  const shared = resolveSharedSettings({ env, file: data });
  const catalogProblems: string[] = [];
  const catalog = loadCatalog(
    data.catalog,
    configFile ? path.dirname(configFile) : process.cwd(),
    catalogProblems,
  );
  const notifications = notificationSettings(data.notifications);
  const approvalKeys = new Map(
    Object.entries(data.approvals?.keys ?? {}).map(([name, keys]) => [
      name,
      typeof keys === 'string' ? [keys] : keys,
    ]),
  );
  const drift = loadDriftStates(
    data.drift,
    new Set(notifications.targets.keys()),
    configFile ? path.dirname(configFile) : process.cwd(),
    catalogProblems,
    approvalKeys,
    notice,
  );
  if (drift !== undefined) uncataloguedAutoRepairs(drift.states, catalog, catalogProblems);
  if (catalogProblems.length > 0) throw configError(catalogProblems, source);
  let governance: CompiledGovernance | undefined;
  if (data.policies !== undefined || data.calendars !== undefined) {
    const compiled = compileGovernance(
      {
        ...(data.policies !== undefined && { policies: data.policies }),
        ...(data.calendars !== undefined && { calendars: data.calendars }),
      },
      calendarFileReader(configFile ? path.dirname(configFile) : process.cwd(), options.readFile),
    );
    if (!compiled.ok) throw configError(compiled.problems, source);
    governance = compiled.governance;
    const unenforceable = unenforceableRules(governance, {
      groups: new Map(Object.entries(data.approvals?.groups ?? {})),
      hasKey: (name) => (approvalKeys.get(name)?.length ?? 0) > 0,
    });
    if (unenforceable.length > 0) throw configError(unenforceable, source);
  }

  const config: WorkerConfig = {
    taskQueue: shared.taskQueue,
    metricsAddress: data.metricsAddress,
    cloud: { baseUrl, allowInsecureLoopback, timeoutMs: data.cloud.timeoutMs, defaultProjectId, projects },
    temporal: { address: data.temporal?.address, namespace: data.temporal?.namespace },
    tuning: { ...DEFAULT_WORKER_TUNING, ...data.tuning },
    configFile,
    approvals: {
      keys: approvalKeys,
      groups: new Map(Object.entries(data.approvals?.groups ?? {})),
    },
    notifications,
    catalog,
    ...(governance !== undefined && { governance }),
    ...(drift !== undefined && { drift }),
  };
  return withSafeDisplay(config);
}

function notificationSettings(section: ParsedWorkerConfig['notifications']): NotificationSettings {
  if (section === undefined) return DEFAULT_NOTIFICATION_SETTINGS;
  return {
    targets: new Map(Object.entries(section.targets)),
    ...(section.webUiUrl !== undefined && { webUiUrl: section.webUiUrl.replace(/\/+$/, '') }),
    maxAttempts: section.maxAttempts ?? DEFAULT_NOTIFICATION_SETTINGS.maxAttempts,
    retryIntervalMs: section.retryIntervalMs ?? DEFAULT_NOTIFICATION_SETTINGS.retryIntervalMs,
  };
}

/**
 * Every credential secret of the configured projects (secret keys, bearer tokens) in plain text,
 * for the log scrubber; nothing else may reveal them.
 */
export function projectSecrets(cloud: CloudConfig): string[] {
  return [...cloud.projects.values()].map((project) =>
    project.bearerToken !== undefined ? project.bearerToken.reveal() : project.secretKey.reveal(),
  );
}

/** Every secret of a configuration (credentials, webhook URLs) in plain text, for the scrubbers. */
export function configSecrets(config: Pick<WorkerConfig, 'cloud' | 'notifications'>): string[] {
  const webhooks = [...config.notifications.targets.values()].map((target) => target.url.reveal());
  return [...projectSecrets(config.cloud), ...webhooks];
}

/** What may be printed about a config: no keys, ever. */
export function describeWorkerConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    taskQueue: config.taskQueue,
    metricsAddress: config.metricsAddress,
    configFile: config.configFile,
    cloud: {
      baseUrl: config.cloud.baseUrl,
      allowInsecureLoopback: config.cloud.allowInsecureLoopback,
      defaultProject: config.cloud.defaultProjectId,
      projects: [...config.cloud.projects.keys()],
      rateLimits: Object.fromEntries(
        [...config.cloud.projects.values()].flatMap((p) => (p.rateLimit ? [[p.projectId, p.rateLimit]] : [])),
      ),
    },
    approvals: { keys: [...config.approvals.keys.keys()], groups: [...config.approvals.groups.keys()] },
    notifications: { targets: [...config.notifications.targets.keys()] },
    policies:
      config.governance === undefined ? [] : describeRules(config.governance).map((rule) => rule.name),
    drift: {
      states: [...(config.drift?.states.keys() ?? [])],
      notify: config.drift?.notify ?? [],
      ...(config.drift?.repairAs !== undefined && { repairAs: config.drift.repairAs.by }),
    },
    catalog: {
      mode: config.catalog?.mode ?? 'development',
      runbooks: (config.catalog?.list ?? []).map(({ name, file, hash }) => ({ name, file, sha256: hash })),
    },
  };
}

function withSafeDisplay(config: WorkerConfig): WorkerConfig {
  Object.defineProperty(config, 'toJSON', { value: () => describeWorkerConfig(config), enumerable: false });
  Object.defineProperty(config, inspect.custom, {
    value: () => `WorkerConfig ${inspect(describeWorkerConfig(config), { depth: 4 })}`,
    enumerable: false,
  });
  return config;
}
