// Where the CLI connects and which task queue it uses: flags > environment > config file >
// defaults. The config file is the worker's file (TIDELINE_CONFIG or --config); the CLI reads its
// `taskQueue` and an optional `temporal: { address, namespace }` section. TLS, API keys and
// profiles stay with Temporal's own TEMPORAL_* variables, which cli/temporal.ts hands on.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CliContext } from './context';
import { CliError } from './errors';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_NAMESPACE = 'default';
export const DEFAULT_TASK_QUEUE = 'tideline';

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

export interface CliSettings {
  /** Undefined when neither flag, env nor config file sets it (Temporal's profile or default applies). */
  address: string | undefined;
  namespace: string | undefined;
  taskQueue: string;
  configFile: string | undefined;
  sources: { address: SettingSource; namespace: SettingSource; taskQueue: SettingSource };
}

interface FileSettings {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(value: unknown, field: string, file: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  throw new CliError('CLI_USAGE', `config file ${file}: ${field} must be a non-empty string`);
}

/** Reads the client settings from a config file (YAML or JSON). Never echoes file content. */
export function readConfigFile(file: string): FileSettings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(
      'CLI_USAGE',
      `cannot read the config file ${file} (${reason})`,
      'check --config or TIDELINE_CONFIG',
    );
  }
  let raw: unknown;
  try {
    // Loaded here only: most commands never read a config file.
    const yaml = require('yaml') as typeof import('yaml');
    raw = yaml.parse(text) ?? {};
  } catch (error) {
    const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    const at = where ? ` at line ${where.line}, column ${where.col}` : '';
    throw new CliError('CLI_USAGE', `the config file ${file} is not valid YAML${at}`);
  }
  if (!isRecord(raw)) throw new CliError('CLI_USAGE', `the config file ${file} must hold a mapping`);
  const temporal = raw.temporal;
  if (temporal !== undefined && !isRecord(temporal)) {
    throw new CliError('CLI_USAGE', `config file ${file}: temporal must be a mapping (address, namespace)`);
  }
  const settings: FileSettings = {};
  const address = stringField(temporal?.address, 'temporal.address', file);
  const namespace = stringField(temporal?.namespace, 'temporal.namespace', file);
  const taskQueue = stringField(raw.taskQueue, 'taskQueue', file);
  if (address !== undefined) settings.address = address;
  if (namespace !== undefined) settings.namespace = namespace;
  if (taskQueue !== undefined) settings.taskQueue = taskQueue;
  return settings;
}

function pick(
  flag: string | undefined,
  env: string | undefined,
  file: string | undefined,
): { value: string | undefined; source: SettingSource } {
  if (flag !== undefined && flag !== '') return { value: flag, source: 'flag' };
  if (env !== undefined && env !== '') return { value: env, source: 'env' };
  if (file !== undefined) return { value: file, source: 'config' };
  return { value: undefined, source: 'default' };
}

export function resolveSettings(ctx: Pick<CliContext, 'globals' | 'env' | 'cwd'>): CliSettings {
  const configName = ctx.globals.config ?? (ctx.env.TIDELINE_CONFIG || undefined);
  const configFile = configName === undefined ? undefined : path.resolve(ctx.cwd, configName);
  const file = configFile === undefined ? {} : readConfigFile(configFile);
  const address = pick(ctx.globals.address, ctx.env.TEMPORAL_ADDRESS, file.address);
  const namespace = pick(ctx.globals.namespace, ctx.env.TEMPORAL_NAMESPACE, file.namespace);
  const taskQueue = pick(ctx.globals.taskQueue, ctx.env.TIDELINE_TASK_QUEUE, file.taskQueue);
  return {
    address: address.value,
    namespace: namespace.value,
    taskQueue: taskQueue.value ?? DEFAULT_TASK_QUEUE,
    configFile,
    sources: { address: address.source, namespace: namespace.source, taskQueue: taskQueue.source },
  };
}

/**
 * The environment a child component (the worker) should see so it agrees with the CLI's
 * settings: resolved address, namespace and task queue laid over the CLI's environment.
 */
export function settingsEnvironment(ctx: Pick<CliContext, 'globals' | 'env' | 'cwd'>): NodeJS.ProcessEnv {
  const settings = resolveSettings(ctx);
  const env: NodeJS.ProcessEnv = { ...ctx.env, TIDELINE_TASK_QUEUE: settings.taskQueue };
  if (settings.address !== undefined) env.TEMPORAL_ADDRESS = settings.address;
  if (settings.namespace !== undefined) env.TEMPORAL_NAMESPACE = settings.namespace;
  if (settings.configFile !== undefined) env.TIDELINE_CONFIG = settings.configFile;
  return env;
}
