// Where the CLI connects and which task queue it uses: flags > environment > config file >
// defaults. The config file is the worker's file (TIDELINE_CONFIG or --config); the CLI reads its
// `taskQueue` and an optional `temporal: { address, namespace }` section. TLS, API keys and
// profiles stay with Temporal's own TEMPORAL_* variables, which cli/temporal.ts hands on. The file
// is read bounded like a runbook (dsl/source-file.ts), so a device or a huge file is a usage error.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import path from 'node:path';
import { readSourceFile } from '../dsl/source-file';
import { warnIfSecretConfigOpen } from '../worker/file-permissions';
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

/** The config file's text, read bounded like a runbook (regular file, size limit, UTF-8). */
function readConfigText(file: string): string {
  const hint = 'check --config or TIDELINE_CONFIG';
  const read = readSourceFile(file, 'config file');
  if (read.kind === 'missing') {
    throw new CliError('CLI_USAGE', `cannot read the config file ${file} (ENOENT)`, hint);
  }
  if (read.kind === 'unreadable')
    throw new CliError('CLI_USAGE', `the config file ${file} ${read.reason}`, hint);
  if (read.invalidUtf8) {
    const { line, column } = read.invalidUtf8;
    throw new CliError(
      'CLI_USAGE',
      `the config file ${file}: invalid UTF-8 at line ${line}, column ${column}`,
      'save the file as UTF-8 text',
    );
  }
  return read.text;
}

/**
 * Reads the client settings from a config file (YAML or JSON). Never echoes file content.
 * `notice` receives the warning for a file with a secret key that other users can read.
 */
export function readConfigFile(file: string, notice?: (line: string) => void): FileSettings {
  const text = readConfigText(file);
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
  if (notice !== undefined) warnIfSecretConfigOpen(file, raw, notice);
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

/** The config files already warned about, per output stream: one warning per command. */
const warned = new WeakMap<object, Set<string>>();

function warnOnce(stderr: CliContext['stderr'], file: string): (line: string) => void {
  return (line) => {
    const files = warned.get(stderr) ?? new Set<string>();
    warned.set(stderr, files);
    if (files.has(file)) return;
    files.add(file);
    stderr.write(`${line}\n`);
  };
}

/**
 * The settings in effect. With `ctx.stderr`, a config file that holds a secret key and that other
 * users can read gets one warning line there (the worker, which reads the file itself, warns alike).
 */
export function resolveSettings(
  ctx: Pick<CliContext, 'globals' | 'env' | 'cwd'> & Partial<Pick<CliContext, 'stderr'>>,
): CliSettings {
  const configName = ctx.globals.config ?? (ctx.env.TIDELINE_CONFIG || undefined);
  const configFile = configName === undefined ? undefined : path.resolve(ctx.cwd, configName);
  const notice = ctx.stderr && configFile !== undefined ? warnOnce(ctx.stderr, configFile) : undefined;
  const file = configFile === undefined ? {} : readConfigFile(configFile, notice);
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
  // No warning here: the worker given this environment reads the file and warns itself.
  const settings = resolveSettings({ globals: ctx.globals, env: ctx.env, cwd: ctx.cwd });
  const env: NodeJS.ProcessEnv = { ...ctx.env, TIDELINE_TASK_QUEUE: settings.taskQueue };
  if (settings.address !== undefined) env.TEMPORAL_ADDRESS = settings.address;
  if (settings.namespace !== undefined) env.TEMPORAL_NAMESPACE = settings.namespace;
  if (settings.configFile !== undefined) env.TIDELINE_CONFIG = settings.configFile;
  return env;
}
