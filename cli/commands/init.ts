// `tideline init NAME`: writes a new runbook (DIR/NAME.yaml) and its tests (DIR/NAME.test.yaml)
// from cli/init-templates.ts, so an author starts from a runbook and cases that already pass under
// `tideline validate` and `tideline test`. Existing files are left alone unless --force.
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RUNBOOK_SCHEMA_FILE } from '../../dsl/json-schema';
import { RunbookName } from '../../dsl/schema-primitives';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { packageRoot } from '../../stack/temporal-binary';
import { CliError, EXIT } from '../errors';
import { runbookTemplate, runbookTestTemplate, TEMPLATE_CASES } from '../init-templates';
import { currentInvocation, shellQuote } from '../output/cli-invocation';
import { styleFor } from '../output/style';
import { RUNBOOK_TEST_SCHEMA_FILE } from '../../rehearsal/test-file-schema';
import { TEST_FILE_SUFFIX } from '../../rehearsal/test-files';

const DEFAULT_DIR = 'runbooks';

export const INIT_SPEC = {
  name: 'init',
  usage: 'NAME [--dir DIR] [--force]',
  description: [
    'Writes DIR/NAME.yaml, a small runbook to start from (read a service, check it is READY, enable',
    'its connection pooler with an undo, wait until READY, tag it PROD), and DIR/NAME.test.yaml with',
    'cases that pass under `tideline test` as written: a success, a rollback after a fault and a',
    'refusal. NAME is the runbook name (kebab-case). The files point editors at the JSON Schemas of',
    'this tideline, relative to DIR. Existing files are not overwritten unless --force (exit 2).',
  ],
  options: {
    dir: { type: 'string' },
    force: { type: 'boolean' },
  },
  optionHelp: [
    ['--dir DIR', 'the folder to write to, made if missing (default: runbooks/)'],
    ['--force', 'overwrite DIR/NAME.yaml and DIR/NAME.test.yaml if they exist'],
  ],
  examples: ['tideline init enable-pooler', 'tideline init resize-orders --dir ops/runbooks --json'],
  positionals: { min: 1, max: 1, names: 'the runbook NAME' },
} satisfies CommandSpec;

/** NAME, checked by the runbook schema's own name rule. */
function checkedName(name: string): string {
  const parsed = RunbookName.safeParse(name);
  if (parsed.success) return parsed.data;
  throw new CliError(
    'CLI_USAGE',
    `"${name}" is not a runbook name: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    'at most 63 characters, starting with a letter, e.g. `tideline init enable-pooler`',
  );
}

/**
 * A `$schema` reference from `dir` to a file of this tideline: `../schema/…` in a checkout's
 * runbooks/, `../node_modules/tideline/schema/…` in a project that installed tideline.
 */
export function schemaReference(dir: string, file: string, root: string = packageRoot()): string {
  const target = path.join(root, file);
  const relative = path.relative(dir, target);
  // On another drive there is no relative path; an absolute one still works for this machine.
  return (path.isAbsolute(relative) ? target : relative).split(path.sep).join('/');
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function fileExists(shown: string[], written: string[] = []): CliError {
  const which =
    shown.length === 1 ? `${shown[0] ?? ''} already exists` : `${shown.join(' and ')} already exist`;
  return new CliError(
    'FILE_EXISTS',
    `${which}; ${written.length === 0 ? 'nothing was written' : `only ${written.join(' and ')} was written`}`,
    'choose another NAME or --dir, or add --force to overwrite',
  );
}

function makeDir(absolute: string, shown: string): void {
  try {
    mkdirSync(absolute, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      'CLI_USAGE',
      `cannot make the folder ${shown}${code !== undefined ? ` (${code})` : ''}`,
      'give --dir a folder you can write to (it is made if missing)',
    );
  }
}

function nextCommand(words: string[]): string {
  return [...currentInvocation(), ...words].map(shellQuote).join(' ');
}

type FileKey = 'runbook' | 'test';

function report(ctx: CliContext, files: Record<FileKey, string>, overwritten: FileKey[]): void {
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify({ ok: true, runbook: files.runbook, test: files.test })}\n`);
    return;
  }
  const style = styleFor(ctx);
  const verb = (key: FileKey) => (overwritten.includes(key) ? 'overwrote' : 'wrote');
  ctx.stdout.write(
    [
      `${style.green('✓')} ${verb('runbook')} ${files.runbook}`,
      `${style.green('✓')} ${verb('test')} ${files.test} (${TEMPLATE_CASES.length} cases: ${TEMPLATE_CASES.join(', ')})`,
      'next:',
      `  ${nextCommand(['validate', files.runbook])}`,
      `  ${nextCommand(['test', files.test])}`,
      '',
    ].join('\n'),
  );
}

export const initCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(INIT_SPEC, argv, ctx);
  const name = checkedName(parsed.positionals[0] ?? '');
  const dirShown = parsed.values.dir ?? DEFAULT_DIR;
  const dir = path.resolve(ctx.cwd, dirShown);
  const runbookFile = `${name}.yaml`;
  const files = {
    runbook: path.join(dirShown, runbookFile),
    test: path.join(dirShown, `${name}${TEST_FILE_SUFFIX}`),
  };
  const absolute = {
    runbook: path.join(dir, runbookFile),
    test: path.join(dir, `${name}${TEST_FILE_SUFFIX}`),
  };
  const force = parsed.values.force === true;
  const present = (['runbook', 'test'] as const).filter((key) => exists(absolute[key]));
  if (present.length > 0 && !force) throw fileExists(present.map((key) => files[key]));
  makeDir(dir, dirShown);
  const values = {
    name,
    runbookFile,
    runbookSchema: schemaReference(dir, RUNBOOK_SCHEMA_FILE),
    testSchema: schemaReference(dir, RUNBOOK_TEST_SCHEMA_FILE),
    testPath: files.test,
  };
  // `wx` refuses a file that appeared since the check above, instead of overwriting it.
  const flag = force ? 'w' : 'wx';
  const written: string[] = [];
  for (const [key, text] of [
    ['runbook', runbookTemplate(values)],
    ['test', runbookTestTemplate(values)],
  ] as const) {
    try {
      writeFileSync(absolute[key], text, { flag });
      written.push(files[key]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw fileExists([files[key]], written);
      throw new CliError(
        'CLI_USAGE',
        `cannot write ${files[key]}: ${(error as Error).message}`,
        'give --dir a folder you can write to',
      );
    }
  }
  report(ctx, files, present);
  return EXIT.OK;
};
