// The settings the CLI, the worker and the local stack share: where Temporal is (address,
// namespace), which task queue runbooks run on, and which config file holds them. This module is
// their only schema and the only place their defaults are written; cli/settings.ts and
// worker/config.ts resolve through it, and worker/connection.ts turns the result into a Temporal
// connection.
//
// Precedence, highest first:
//   1. command-line flags (--address, --namespace, --task-queue; the CLI only),
//   2. environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TIDELINE_TASK_QUEUE (empty = unset),
//   3. the config file (--config, else TIDELINE_CONFIG): `taskQueue`, `temporal.address`,
//      `temporal.namespace`,
//   4. for address and namespace only: Temporal's profile (TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE),
//      read by worker/connection.ts together with TLS, API key and gRPC metadata,
//   5. SHARED_DEFAULTS.
/* eslint-disable @typescript-eslint/no-require-imports -- the YAML parser loads only when a file is read */
import path from 'node:path';
import { z } from 'zod';
import { readSourceFile } from '../dsl/source-file';

/** The defaults of the shared settings, written once. */
export const SHARED_DEFAULTS = {
  address: 'localhost:7233',
  namespace: 'default',
  taskQueue: 'tideline',
} as const;

/** A setting's text: blank means "not given", which a file must say by leaving the key out. */
const SettingText = z.string().refine((value) => value.trim() !== '', 'must not be empty');

/** The config file's `temporal:` section; TLS and API keys stay with Temporal's own variables. */
export const TemporalSectionSchema = z.strictObject({
  address: SettingText.optional(),
  namespace: SettingText.optional(),
});

/**
 * The config file's keys that the CLI and the worker share. The worker's schema
 * (worker/config-schema.ts) extends these fields and refuses unknown top-level keys; the CLI
 * parses with this schema alone, which ignores the worker's own keys (cloud, tuning, …).
 */
export const sharedFileFields = {
  taskQueue: SettingText.optional(),
  /** TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE and the flags take precedence over this section. */
  temporal: TemporalSectionSchema.optional(),
};
export const SharedFileSchema = z.object(sharedFileFields);
export type SharedFileSettings = z.infer<typeof SharedFileSchema>;

export type SettingSource = 'flag' | 'env' | 'config' | 'default';

export interface SharedSettingFlags {
  address?: string | undefined;
  namespace?: string | undefined;
  taskQueue?: string | undefined;
}

export interface SharedSettingsInput {
  env: NodeJS.ProcessEnv;
  /** Command-line values; the worker has none. */
  flags?: SharedSettingFlags;
  /** The config file's content, already checked with SharedFileSchema (or the worker's schema). */
  file?: SharedFileSettings;
}

export interface SharedSettings {
  /** Undefined when neither flag, environment nor file sets it: Temporal's profile, then the default, apply. */
  address: string | undefined;
  namespace: string | undefined;
  taskQueue: string;
  sources: { address: SettingSource; namespace: SettingSource; taskQueue: SettingSource };
}

function given(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function pick(
  flag: string | undefined,
  env: string | undefined,
  file: string | undefined,
): { value: string | undefined; source: SettingSource } {
  if (given(flag)) return { value: flag, source: 'flag' };
  if (given(env)) return { value: env, source: 'env' };
  if (file !== undefined) return { value: file, source: 'config' };
  return { value: undefined, source: 'default' };
}

/** The shared settings in effect, by the precedence in this module's header. */
export function resolveSharedSettings(input: SharedSettingsInput): SharedSettings {
  const { env, flags = {}, file = {} } = input;
  const address = pick(flags.address, env.TEMPORAL_ADDRESS, file.temporal?.address);
  const namespace = pick(flags.namespace, env.TEMPORAL_NAMESPACE, file.temporal?.namespace);
  const taskQueue = pick(flags.taskQueue, env.TIDELINE_TASK_QUEUE, file.taskQueue);
  return {
    address: address.value,
    namespace: namespace.value,
    taskQueue: taskQueue.value ?? SHARED_DEFAULTS.taskQueue,
    sources: { address: address.source, namespace: namespace.source, taskQueue: taskQueue.source },
  };
}

/** The config file in effect (--config, else TIDELINE_CONFIG), absolute against `cwd`; undefined for none. */
export function resolveConfigFile(
  env: NodeJS.ProcessEnv,
  flag?: string,
  cwd: string = process.cwd(),
): string | undefined {
  const name = flag ?? (given(env.TIDELINE_CONFIG) ? env.TIDELINE_CONFIG : undefined);
  return name === undefined ? undefined : path.resolve(cwd, name);
}

/**
 * The environment a child process (the worker) needs to resolve the same settings: `settings`
 * and the config file laid over `env` as the variables of step 2.
 */
export function sharedSettingsEnvironment(
  env: NodeJS.ProcessEnv,
  settings: SharedSettings,
  configFile: string | undefined,
): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env, TIDELINE_TASK_QUEUE: settings.taskQueue };
  if (settings.address !== undefined) result.TEMPORAL_ADDRESS = settings.address;
  if (settings.namespace !== undefined) result.TEMPORAL_NAMESPACE = settings.namespace;
  if (configFile !== undefined) result.TIDELINE_CONFIG = configFile;
  return result;
}

/** A config file read and parsed, or why not; each reader words the failure for its audience. */
export type ConfigDocument =
  | { kind: 'parsed'; content: unknown }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'invalid-utf8'; line: number; column: number }
  /** `at` is ` at line L, column C` or empty; the parser's message is left out: it quotes the line. */
  | { kind: 'syntax'; at: string; code: string | undefined };

/**
 * Reads a config file (YAML or JSON) bounded like a runbook (dsl/source-file.ts): a directory,
 * device or huge file is refused. `readFile` replaces the reading (tests, a generated file).
 */
export function readConfigDocument(file: string, readFile?: (file: string) => string): ConfigDocument {
  let text: string;
  if (readFile === undefined) {
    const read = readSourceFile(file, 'config file');
    if (read.kind !== 'text') return read;
    if (read.invalidUtf8) return { kind: 'invalid-utf8', ...read.invalidUtf8 };
    text = read.text;
  } else {
    try {
      text = readFile(file);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return { kind: 'unreadable', reason: `cannot be read (${reason})` };
    }
  }
  try {
    const yaml = require('yaml') as typeof import('yaml');
    return { kind: 'parsed', content: yaml.parse(text) ?? {} };
  } catch (error) {
    const failure = error as { linePos?: { line: number; col: number }[]; code?: unknown };
    const where = failure.linePos?.[0];
    return {
      kind: 'syntax',
      at: where ? ` at line ${where.line}, column ${where.col}` : '',
      code: typeof failure.code === 'string' ? failure.code : undefined,
    };
  }
}
