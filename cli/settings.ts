// Where the CLI connects and which task queue it uses, resolved by worker/shared-settings.ts (the
// worker resolves through it too): flags > environment > config file > Temporal profile >
// defaults. The config file is the worker's file (--config or TIDELINE_CONFIG); the CLI checks
// only the keys it shares with the worker (`taskQueue`, `temporal: { address, namespace }`) and
// ignores the worker's own. TLS, API keys and profiles stay with Temporal's own TEMPORAL_*
// variables, which worker/connection.ts reads. A file that cannot be read or parsed is a usage
// error that quotes nothing from it.
import { warnIfSecretConfigOpen } from '../worker/file-permissions';
import {
  readConfigDocument,
  resolveConfigFile,
  resolveSharedSettings,
  sharedSettingsEnvironment,
  SharedFileSchema,
  type SharedFileSettings,
  type SharedSettings,
} from '../worker/shared-settings';
import type { CliContext } from './context';
import { CliError } from './errors';

export type { SettingSource } from '../worker/shared-settings';

export type CliSettings = SharedSettings & { configFile: string | undefined };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The file's content, parsed; every failure is a CLI_USAGE error naming the file, never its text. */
function readConfigContent(file: string): unknown {
  const hint = 'check --config or TIDELINE_CONFIG';
  const document = readConfigDocument(file);
  switch (document.kind) {
    case 'parsed':
      return document.content;
    case 'missing':
      throw new CliError('CLI_USAGE', `cannot read the config file ${file} (ENOENT)`, hint);
    case 'unreadable':
      throw new CliError('CLI_USAGE', `the config file ${file} ${document.reason}`, hint);
    case 'invalid-utf8':
      throw new CliError(
        'CLI_USAGE',
        `the config file ${file}: invalid UTF-8 at line ${document.line}, column ${document.column}`,
        'save the file as UTF-8 text',
      );
    case 'syntax':
      throw new CliError('CLI_USAGE', `the config file ${file} is not valid YAML${document.at}`);
  }
}

/** The first schema problem, worded as the CLI words a config file problem. */
function fileProblem(file: string, issue: { path: PropertyKey[]; code: string; keys?: string[] }): CliError {
  const where = issue.path.map(String).join('.');
  if (where === 'temporal' && issue.code === 'invalid_type') {
    return new CliError('CLI_USAGE', `config file ${file}: temporal must be a mapping (address, namespace)`);
  }
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue.keys ?? []).map((key) => `"${key}"`).join(', ');
    return new CliError(
      'CLI_USAGE',
      `config file ${file}: ${where} has unknown keys ${keys} (it takes address, namespace)`,
    );
  }
  return new CliError('CLI_USAGE', `config file ${file}: ${where} must be a non-empty string`);
}

/**
 * The settings the CLI shares with the worker, from a config file (YAML or JSON). Never echoes
 * file content. `notice` receives the warning for a file with a secret key that other users can read.
 */
export function readConfigFile(file: string, notice?: (line: string) => void): SharedFileSettings {
  const raw = readConfigContent(file);
  if (notice !== undefined) warnIfSecretConfigOpen(file, raw, notice);
  if (!isRecord(raw)) throw new CliError('CLI_USAGE', `the config file ${file} must hold a mapping`);
  const parsed = SharedFileSchema.safeParse(raw);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    if (issue !== undefined) throw fileProblem(file, issue);
  }
  return parsed.data ?? {};
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
  const configFile = resolveConfigFile(ctx.env, ctx.globals.config, ctx.cwd);
  const notice = ctx.stderr && configFile !== undefined ? warnOnce(ctx.stderr, configFile) : undefined;
  const file = configFile === undefined ? {} : readConfigFile(configFile, notice);
  const { address, namespace, taskQueue } = ctx.globals;
  const settings = resolveSharedSettings({ env: ctx.env, flags: { address, namespace, taskQueue }, file });
  return { ...settings, configFile };
}

/**
 * The environment a child component (the worker) should see so it agrees with the CLI's
 * settings: resolved address, namespace and task queue laid over the CLI's environment.
 */
export function settingsEnvironment(ctx: Pick<CliContext, 'globals' | 'env' | 'cwd'>): NodeJS.ProcessEnv {
  // No warning here: the worker given this environment reads the file and warns itself.
  const settings = resolveSettings({ globals: ctx.globals, env: ctx.env, cwd: ctx.cwd });
  return sharedSettingsEnvironment(ctx.env, settings, settings.configFile);
}
