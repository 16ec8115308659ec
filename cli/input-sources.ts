// Where a run's input values come from, lowest precedence first: TIDELINE_INPUT_<NAME> variables,
// an inputs file (`--inputs FILE`, or `--inputs -` for stdin), and `-i name=value` pairs, whose
// value may be read from a file (`-i name=@FILE`; `@@…` is a literal `@…`). Files are read bounded
// like runbooks. A secret input given literally on the command line gets a one-line warning,
// since other users can see it in `ps`. Messages name inputs and files, never values.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import path from 'node:path';
import type { RunbookDefinition } from '../dsl/definition';
import {
  decodeUtf8,
  formatBytes,
  MAX_SOURCE_BYTES,
  readSourceFile,
  readStreamBounded,
} from '../dsl/source-file';
import type { CliContext } from './context';
import { CliError } from './errors';

export type InputContext = Pick<CliContext, 'cwd' | 'env' | 'stderr'>;

export interface InputSources {
  /** `-i` pairs as given. */
  pairs?: string[] | undefined;
  /** `--inputs FILE` (`-` for stdin). */
  inputsFile?: string | undefined;
  /** Where `--inputs -` reads from (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
}

/** The environment variable that gives input `name`: TIDELINE_INPUT_NEW_PASSWORD. */
export function inputVariable(name: string): string {
  return `TIDELINE_INPUT_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`;
}

/**
 * Reads a file the user named for input, bounded; the text, or a CLI_USAGE error.
 * `subject`: "the inputs file"; `kind`: what it must be, "inputs file".
 */
function readUserFile(
  file: string,
  subject: string,
  kind: string,
  ctx: Pick<CliContext, 'cwd'>,
  missingHint?: string,
): string {
  const read = readSourceFile(path.resolve(ctx.cwd, file), kind);
  if (read.kind === 'missing') throw new CliError('CLI_USAGE', `${subject} ${file} not found`, missingHint);
  if (read.kind === 'unreadable') throw new CliError('CLI_USAGE', `${subject} ${file} ${read.reason}`);
  if (read.invalidUtf8) {
    const { line, column } = read.invalidUtf8;
    throw new CliError(
      'CLI_USAGE',
      `${subject} ${file}: invalid UTF-8 at line ${line}, column ${column}`,
      'save the file as UTF-8 text',
    );
  }
  return read.text;
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const bytes = await readStreamBounded(stream);
  if (bytes === undefined) {
    throw new CliError(
      'CLI_USAGE',
      `the inputs on stdin are larger than ${formatBytes(MAX_SOURCE_BYTES)}, the limit for an inputs file`,
    );
  }
  const { text, invalidUtf8 } = decodeUtf8(bytes);
  if (invalidUtf8) {
    throw new CliError(
      'CLI_USAGE',
      `the inputs on stdin: invalid UTF-8 at line ${invalidUtf8.line}, column ${invalidUtf8.column}`,
    );
  }
  return text;
}

/** An inputs mapping from YAML or JSON text, held to the same nesting and alias limits as runbooks. */
export function parseInputsText(text: string, source: string): Record<string, unknown> {
  const yaml = require('yaml') as typeof import('yaml');
  const limits = require('../dsl/yaml-limits') as typeof import('../dsl/yaml-limits');
  const lines = new yaml.LineCounter();
  const nesting = limits.limitNesting(text);
  const document = yaml.parseDocument(nesting.text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number): string => {
    const { line, col } = lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const [deep] = nesting.hits;
  if (deep) throw new CliError('CLI_USAGE', `${source}: ${deep.message} (${at(deep.offset)})`, deep.hint);
  const [error] = document.errors;
  if (error) {
    // The parser's message quotes the line, which may hold a secret: position and code only.
    throw new CliError(
      'CLI_USAGE',
      `${source} is not valid YAML or JSON (${at(error.pos[0])}: ${error.code})`,
    );
  }
  const [bomb] = limits.limitAliases(document);
  if (bomb) throw new CliError('CLI_USAGE', `${source}: ${bomb.message} (${at(bomb.offset)})`, bomb.hint);
  const raw: unknown = document.toJS({ maxAliasCount: -1 }) ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CliError('CLI_USAGE', `${source} must hold a mapping of input names to values`);
  }
  return raw as Record<string, unknown>;
}

/** An inputs file (`-` reads stdin): a YAML or JSON mapping of input names to (typed) values. */
export async function readInputsFile(
  file: string,
  ctx: Pick<CliContext, 'cwd'>,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<Record<string, unknown>> {
  if (file === '-') return parseInputsText(await readStdin(stdin), 'the inputs on stdin');
  return parseInputsText(
    readUserFile(file, 'the inputs file', 'inputs file', ctx),
    `the inputs file ${file}`,
  );
}

export interface InputPair {
  name: string;
  value: string;
  /** True when the value was written on the command line (not `@FILE`). */
  literal: boolean;
}

/** `-i key=value` pairs (repeatable). The value may contain `=`; an empty value is allowed. */
export function parseInputPairs(pairs: string[], ctx: Pick<CliContext, 'cwd'>): InputPair[] {
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) {
      throw new CliError(
        'CLI_USAGE',
        `-i expects key=value, got "${pair.length > 40 ? `${pair.slice(0, 40)}…` : pair}"`,
        'e.g. -i name=orders -i cpu_millis=2000, or -i password=@FILE to read the value from a file',
      );
    }
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if (value.startsWith('@@')) return { name, value: value.slice(1), literal: true };
    if (!value.startsWith('@')) return { name, value, literal: true };
    if (value === '@') throw new CliError('CLI_USAGE', `-i ${name}=@ needs a file name after @`);
    const text = readUserFile(
      value.slice(1),
      `the file for input \`${name}\``,
      'input value file',
      ctx,
      `-i ${name}=@FILE reads the value from FILE; for a value that starts with @, write @@`,
    );
    // `echo secret > file` adds a newline nobody means as part of the value.
    return { name, value: text.replace(/\r?\n$/, ''), literal: false };
  });
}

/** Values from TIDELINE_INPUT_<NAME> for the inputs the runbook declares. */
export function environmentInputs(
  definition: Pick<RunbookDefinition, 'inputs'>,
  env: NodeJS.ProcessEnv,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(definition.inputs)) {
    const value = env[inputVariable(name)];
    if (value !== undefined) values[name] = value;
  }
  return values;
}

/**
 * The one-line warning for a secret input written on the command line. `fileOnly`: the command
 * takes values from `-i name=@FILE` only (retry), so that is the one safer form named.
 */
export function secretOnCommandLineWarning(name: string, fileOnly = false): string {
  const safer = fileOnly
    ? `-i ${name}=@FILE`
    : `-i ${name}=@FILE, --inputs FILE (--inputs - reads stdin) or ${inputVariable(name)}`;
  return (
    `tideline: warning: secret input \`${name}\` was given on the command line, where other users can see it (ps, shell history); ` +
    `use ${safer} instead`
  );
}

/** Writes the warning for each secret input among `pairs` given literally. */
export function warnLiteralSecrets(
  definition: Pick<RunbookDefinition, 'inputs'>,
  pairs: readonly InputPair[],
  stderr: NodeJS.WritableStream,
  fileOnly = false,
): void {
  for (const pair of pairs) {
    if (pair.literal && definition.inputs[pair.name]?.secret === true)
      stderr.write(`${secretOnCommandLineWarning(pair.name, fileOnly)}\n`);
  }
}

/** Every source merged: TIDELINE_INPUT_* < `--inputs` < `-i`; warns about literal secrets. */
export async function gatherInputs(
  definition: Pick<RunbookDefinition, 'inputs'>,
  sources: InputSources,
  ctx: InputContext,
): Promise<Record<string, unknown>> {
  const fromFile =
    sources.inputsFile !== undefined ? await readInputsFile(sources.inputsFile, ctx, sources.stdin) : {};
  const pairs = parseInputPairs(sources.pairs ?? [], ctx);
  warnLiteralSecrets(definition, pairs, ctx.stderr);
  return {
    ...environmentInputs(definition, ctx.env),
    ...fromFile,
    ...Object.fromEntries(pairs.map((pair) => [pair.name, pair.value])),
  };
}
