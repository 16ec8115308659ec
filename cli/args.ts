// Command-line parsing for every command: its own options plus the global ones (which may come
// before or after the command name), positional arguments, `--help`, and usage errors that say
// what went wrong and where to look. Built on node:util parseArgs; no other dependency, so that
// `tideline --help` starts fast.
import { parseArgs } from 'node:util';
import { closestName } from '../dsl/suggest';
import type { CliContext, GlobalOptions } from './context';
import { CliError } from './errors';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
}
export type OptionSpecs = Record<string, OptionSpec>;

/** Accepted by every command (and before the command name). */
export const GLOBAL_OPTIONS = {
  address: { type: 'string' },
  namespace: { type: 'string' },
  'task-queue': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionSpecs;

export const GLOBAL_OPTION_HELP: [string, string][] = [
  ['--address HOST:PORT', 'Temporal frontend (env TEMPORAL_ADDRESS; default localhost:7233)'],
  ['--namespace NAME', 'Temporal namespace (env TEMPORAL_NAMESPACE; default "default")'],
  ['--task-queue NAME', 'the workers\' task queue (env TIDELINE_TASK_QUEUE; default "tideline")'],
  ['--config FILE', 'tideline config file (env TIDELINE_CONFIG): taskQueue, temporal.address/namespace'],
  ['--json', 'print machine-readable JSON on stdout'],
  ['-h, --help', 'show help'],
];

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** As typed after `tideline`, e.g. `run` or `schedule create`. */
  name: string;
  /** The arguments part of the usage line, e.g. `FILE [-i key=value]…`. */
  usage: string;
  /**
   * A subcommand's one line (`schedule create`). A command's comes from the registry
   * (cli/command-registry.ts), which `tideline --help` reads without loading the command.
   */
  summary?: string;
  /** Paragraphs printed under the usage line. */
  description?: string[];
  options: O;
  /** Help for the command's own options: [flags, text]. */
  optionHelp: [string, string][];
  examples: string[];
  positionals: { min: number; max?: number; names: string };
}

type ValueOf<S extends OptionSpec> = S['type'] extends 'boolean'
  ? S['multiple'] extends true
    ? boolean[]
    : boolean
  : S['multiple'] extends true
    ? string[]
    : string;
export type ParsedValues<O extends OptionSpecs> = { [K in keyof O]?: ValueOf<O[K]> };

export interface ParsedCommand<O extends OptionSpecs> {
  values: ParsedValues<O>;
  positionals: string[];
}

/**
 * Thrown by `parseCommand` when the command line asks for `--help`: the dispatcher (cli/main.ts)
 * prints the help of `spec`, with the summary the registry gives it, and exits 0.
 */
export class HelpRequest extends Error {
  constructor(readonly spec: CommandSpec) {
    super(`help for tideline ${spec.name}`);
    this.name = 'HelpRequest';
  }
}

export function isHelpRequest(error: unknown): error is HelpRequest {
  return error instanceof HelpRequest;
}

function optionNames(options: OptionSpecs): string[] {
  const names: string[] = [];
  for (const [name, spec] of Object.entries(options)) {
    names.push(`--${name}`);
    if (spec.short) names.push(`-${spec.short}`);
  }
  return names;
}

/** Turns parseArgs' long messages into one line with a hint. */
export function usageError(error: unknown, command: string, options: OptionSpecs): CliError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const seeHelp = `see \`tideline ${command} --help\``.replace('tideline  ', 'tideline ');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(message)?.[1] ?? message;
    const closest = closestName(flag.split('=')[0] ?? flag, optionNames(options));
    return new CliError(
      'CLI_USAGE',
      `unknown option ${flag}`,
      closest ? `did you mean ${closest}? (${seeHelp})` : seeHelp,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(-[^' ,]+)/.exec(message)?.[1];
    if (message.includes('argument is ambiguous')) {
      // `-n -5`: the value looks like an option.
      const long = /use '(--[^=']+)=/.exec(message)?.[1] ?? flag ?? '';
      return new CliError(
        'CLI_USAGE',
        `option ${flag ?? ''} needs a value; the next argument starts with -`.replace('  ', ' '),
        `to give a value that starts with -, write ${long}=VALUE (${seeHelp})`,
      );
    }
    const text = message.includes('argument missing')
      ? `option ${flag ?? ''} needs a value`
      : `option ${flag ?? ''} does not take a value`;
    return new CliError('CLI_USAGE', text.replace('  ', ' '), seeHelp);
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const extra = /'([^']+)'/.exec(message)?.[1];
    return new CliError('CLI_USAGE', `unexpected argument ${extra ?? ''}`.trim(), seeHelp);
  }
  return new CliError('CLI_USAGE', message.split('\n')[0] ?? message, seeHelp);
}

/** Applies the global flags found anywhere on the command line to the context. */
export function applyGlobals(globals: GlobalOptions, values: Record<string, unknown>): void {
  if (typeof values.address === 'string') globals.address = values.address;
  if (typeof values.namespace === 'string') globals.namespace = values.namespace;
  if (typeof values['task-queue'] === 'string') globals.taskQueue = values['task-queue'];
  if (typeof values.config === 'string') globals.config = values.config;
  if (values.json === true) globals.json = true;
}

/**
 * Parses a command's arguments (everything after its name). Global flags are accepted too and
 * written to `ctx.globals`. Throws CliError `CLI_USAGE` for unknown flags or wrong arguments, and
 * a HelpRequest for `--help`.
 */
export function parseCommand<O extends OptionSpecs>(
  spec: CommandSpec<O>,
  argv: string[],
  ctx: CliContext,
): ParsedCommand<O> {
  const options: OptionSpecs = { ...GLOBAL_OPTIONS, ...spec.options };
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (error) {
    throw usageError(error, spec.name, options);
  }
  applyGlobals(ctx.globals, parsed.values);
  if (parsed.values.help === true) throw new HelpRequest(spec);
  const { min, max, names } = spec.positionals;
  const count = parsed.positionals.length;
  const seeHelp = `see \`tideline ${spec.name} --help\``;
  if (count < min) {
    throw new CliError(
      'CLI_USAGE',
      `missing ${names}`,
      `usage: tideline ${spec.name} ${spec.usage} (${seeHelp})`,
    );
  }
  if (max !== undefined && count > max) {
    const extra = parsed.positionals.slice(max).join(' ');
    throw new CliError('CLI_USAGE', `unexpected argument ${extra}`, seeHelp);
  }
  return { values: parsed.values as ParsedValues<O>, positionals: parsed.positionals };
}

/** A flag's number value, checked: e.g. `--limit 20`. */
export function integerOption(flag: string, text: string | undefined, min: number, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min) {
    throw new CliError(
      'CLI_USAGE',
      `--${flag} must be a whole number of at least ${min}`,
      `got ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** A flag with a fixed set of values, e.g. `--format text|mermaid|json`. */
export function choiceOption<T extends string>(
  flag: string,
  text: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (text === undefined) return fallback;
  if ((choices as readonly string[]).includes(text)) return text as T;
  throw new CliError(
    'CLI_USAGE',
    `--${flag} must be one of ${choices.join(', ')}`,
    `got ${JSON.stringify(text)}`,
  );
}

/** `--address` and the other global flags that take a value (the next word). */
const GLOBAL_VALUE_FLAGS: ReadonlySet<string> = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, spec]) => spec.type === 'string')
    .map(([name]) => `--${name}`),
);

/**
 * Where the first word is that is neither a flag nor a global flag's value (a command or a
 * subcommand name); -1 when there is none. With `endAtDoubleDash`, nothing after `--` counts.
 */
export function commandWordIndex(argv: readonly string[], options: { endAtDoubleDash: boolean }): number {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? '';
    if (arg === '--' && options.endAtDoubleDash) return -1;
    if (!arg.startsWith('-')) return index;
    if (GLOBAL_VALUE_FLAGS.has(arg)) index++;
  }
  return -1;
}

/**
 * Splits the global flags that come before the command name from the rest:
 * `tideline --address x:1 run f.yaml` → globals `[--address, x:1]`, command `run`, rest `[f.yaml]`.
 */
export function splitCommandLine(argv: string[]): { before: string[]; command?: string; rest: string[] } {
  const index = commandWordIndex(argv, { endAtDoubleDash: true });
  if (index === -1) return { before: argv, rest: [] };
  return { before: argv.slice(0, index), command: argv[index], rest: argv.slice(index + 1) };
}
