// The worker's own configuration: task queue, metrics, and the Cloud API base URL with
// credentials per project. It comes from an optional YAML/JSON file (TIDELINE_CONFIG) with
// environment variables on top — never from workflow input. Temporal connection settings are
// separate (connection.ts) and follow Temporal's standard variables and profiles.
//
// Config file (YAML or JSON):
//   taskQueue: tideline                      # optional
//   metricsAddress: 127.0.0.1:9464           # optional Prometheus endpoint
//   cloud:
//     baseUrl: https://api.example.com/public/api/v1
//     allowInsecureLoopback: false           # plain http only to 127.0.0.1/localhost
//     timeoutMs: 30000                       # optional per-request deadline
//     defaultProject: d1k5vk7hf2             # optional; default: the only/first project
//     projects:
//       d1k5vk7hf2: { accessKey: AK…, secretKey: SK… }
//
// Environment (overrides the file): TIDELINE_TASK_QUEUE, TIDELINE_METRICS_ADDRESS,
// TIDELINE_CLOUD_URL, TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1, and together
// TIDELINE_CLOUD_PROJECT_ID + TIDELINE_CLOUD_ACCESS_KEY + TIDELINE_CLOUD_SECRET_KEY (one project,
// which becomes the default).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { parseBaseUrl } from '../cloud/base-url';
import { Secret } from '../cloud/redact';
import { WorkerError } from './errors';

export const DEFAULT_TASK_QUEUE = 'tideline';

const CloudBaseUrl = z.string().min(1, 'must not be empty');

const ProjectCredentials = z.strictObject({
  accessKey: z.string().min(1, 'must not be empty'),
  secretKey: z
    .string()
    .min(1, 'must not be empty')
    .transform((value) => new Secret(value)),
  /** Only when this project lives behind another API endpoint than `cloud.baseUrl`. */
  baseUrl: CloudBaseUrl.optional(),
});

const HostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must look like host:port, e.g. 127.0.0.1:9464');

/** The configuration file's shape (and, after merging the environment, the whole config's). */
export const WorkerFileConfigSchema = z.strictObject({
  taskQueue: z.string().min(1, 'must not be empty').optional(),
  metricsAddress: HostPort.optional(),
  cloud: z
    .strictObject({
      baseUrl: CloudBaseUrl.optional(),
      allowInsecureLoopback: z.boolean().optional(),
      timeoutMs: z.number().int().positive().optional(),
      defaultProject: z.string().min(1).optional(),
      projects: z.record(z.string().min(1), ProjectCredentials).optional(),
    })
    .optional(),
});

export interface ProjectConfig {
  projectId: string;
  accessKey: string;
  secretKey: Secret;
  baseUrl: string;
}

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
  /** The config file read, if any (for messages). */
  configFile: string | undefined;
}

export interface LoadWorkerConfigOptions {
  env?: NodeJS.ProcessEnv;
  readFile?: (file: string) => string;
}

function configError(problems: string[], source: string): WorkerError {
  const list = problems.map((problem) => `  - ${problem}`).join('\n');
  return new WorkerError(
    'TIDELINE_CONFIG_INVALID',
    `invalid tideline worker configuration (${source}):\n${list}`,
  );
}

function readConfigFile(file: string, readFile: (file: string) => string): unknown {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw configError([`TIDELINE_CONFIG names ${file}, which cannot be read (${reason})`], file);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (error) {
    // The parser's message quotes the offending line, which may hold a secret: give position only.
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0];
      const at = where ? ` at line ${where.line}, column ${where.col}` : '';
      throw configError([`syntax error${at} (${error.code})`], file);
    }
    throw error;
  }
}

function flagIsOn(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Environment variables on top of the raw file content (checked afterwards by the schema); the
 * env project joins (or replaces) the file's.
 */
function applyEnvironment(
  file: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  problems: string[],
): unknown {
  const fileCloud = isRecord(file.cloud) ? file.cloud : {};
  const projects: Record<string, unknown> = isRecord(fileCloud.projects) ? { ...fileCloud.projects } : {};
  const cloud: Record<string, unknown> = { ...fileCloud, projects };
  if (file.cloud !== undefined && !isRecord(file.cloud)) {
    problems.push('cloud: must be a mapping (baseUrl, projects, …)');
  } else if (fileCloud.projects !== undefined && !isRecord(fileCloud.projects)) {
    problems.push('cloud.projects: must be a mapping of project id to { accessKey, secretKey }');
  }
  if (env.TIDELINE_CLOUD_URL) cloud.baseUrl = env.TIDELINE_CLOUD_URL;
  const insecure = flagIsOn(env.TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK);
  if (insecure !== undefined) cloud.allowInsecureLoopback = insecure;

  const trio = {
    TIDELINE_CLOUD_PROJECT_ID: env.TIDELINE_CLOUD_PROJECT_ID,
    TIDELINE_CLOUD_ACCESS_KEY: env.TIDELINE_CLOUD_ACCESS_KEY,
    TIDELINE_CLOUD_SECRET_KEY: env.TIDELINE_CLOUD_SECRET_KEY,
  };
  const given = Object.entries(trio).filter(([, value]) => value !== undefined && value !== '');
  if (given.length === 3) {
    const projectId = trio.TIDELINE_CLOUD_PROJECT_ID as string;
    projects[projectId] = {
      accessKey: trio.TIDELINE_CLOUD_ACCESS_KEY,
      secretKey: trio.TIDELINE_CLOUD_SECRET_KEY,
    };
    cloud.defaultProject = projectId;
  } else if (given.length > 0) {
    const missing = Object.keys(trio).filter((name) => !given.some(([set]) => set === name));
    problems.push(
      `${missing.join(' and ')} must be set too (the three TIDELINE_CLOUD_* credentials go together)`,
    );
  }
  return {
    ...file,
    ...(env.TIDELINE_TASK_QUEUE ? { taskQueue: env.TIDELINE_TASK_QUEUE } : {}),
    ...(env.TIDELINE_METRICS_ADDRESS ? { metricsAddress: env.TIDELINE_METRICS_ADDRESS } : {}),
    cloud,
  };
}

function issueText(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  return `${where}: ${issue.message}`;
}

function checkBaseUrl(
  raw: string,
  allowInsecureLoopback: boolean,
  where: string,
  problems: string[],
): string {
  try {
    return parseBaseUrl(raw, allowInsecureLoopback).href;
  } catch (error) {
    problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    return raw;
  }
}

/** Reads and checks the configuration; every problem found is listed in one error. */
export function loadWorkerConfig(options: LoadWorkerConfigOptions = {}): WorkerConfig {
  const env = options.env ?? process.env;
  const readFile = options.readFile ?? ((file: string) => readFileSync(file, 'utf8'));
  const configFile = env.TIDELINE_CONFIG ? path.resolve(env.TIDELINE_CONFIG) : undefined;
  const source = configFile ? `${configFile} and environment` : 'environment';

  const raw = configFile ? readConfigFile(configFile, readFile) : {};
  if (!isRecord(raw)) throw configError(['the file must hold a mapping (taskQueue, cloud, …)'], source);

  const problems: string[] = [];
  const merged = WorkerFileConfigSchema.safeParse(applyEnvironment(raw, env, problems));
  if (!merged.success || problems.length > 0) {
    throw configError([...problems, ...(merged.error?.issues.map(issueText) ?? [])], source);
  }
  const data = merged.data;

  const cloud = data.cloud ?? {};
  const allowInsecureLoopback = cloud.allowInsecureLoopback ?? false;
  if (!cloud.baseUrl)
    problems.push('cloud.baseUrl: required (set TIDELINE_CLOUD_URL or cloud.baseUrl in the file)');
  const baseUrl = cloud.baseUrl
    ? checkBaseUrl(cloud.baseUrl, allowInsecureLoopback, 'cloud.baseUrl', problems)
    : '';

  const projects = new Map<string, ProjectConfig>();
  for (const [projectId, credentials] of Object.entries(cloud.projects ?? {})) {
    const projectUrl = credentials.baseUrl
      ? checkBaseUrl(
          credentials.baseUrl,
          allowInsecureLoopback,
          `cloud.projects.${projectId}.baseUrl`,
          problems,
        )
      : baseUrl;
    projects.set(projectId, { projectId, ...credentials, baseUrl: projectUrl });
  }
  if (projects.size === 0) {
    problems.push(
      'cloud.projects: no Cloud API credentials (set TIDELINE_CLOUD_PROJECT_ID, TIDELINE_CLOUD_ACCESS_KEY and ' +
        'TIDELINE_CLOUD_SECRET_KEY, or list projects in the file named by TIDELINE_CONFIG)',
    );
  }
  const defaultProjectId = cloud.defaultProject ?? [...projects.keys()][0] ?? '';
  if (projects.size > 0 && !projects.has(defaultProjectId)) {
    problems.push(`cloud.defaultProject: "${defaultProjectId}" is not one of the configured projects`);
  }
  if (problems.length > 0) throw configError(problems, source);

  const config: WorkerConfig = {
    taskQueue: data.taskQueue ?? DEFAULT_TASK_QUEUE,
    metricsAddress: data.metricsAddress,
    cloud: { baseUrl, allowInsecureLoopback, timeoutMs: cloud.timeoutMs, defaultProjectId, projects },
    configFile,
  };
  return withSafeDisplay(config);
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
