// Every example in README.md and docs/*.md is checked against the code it describes, so the docs
// cannot drift from it.
//
// YAML and JSON blocks are read by the validator that would read them for real: runbooks (and
// runbook fragments, placed in a small runbook) by the dsl loader and validator, the local cloud's
// config by its zod schema, the worker's config file by its zod schema. A block is marked by an
// HTML comment on the line before its fence:
//   <!-- example: runbook -->            a whole runbook (the default when it has `apiVersion`)
//   <!-- example: runbook file=NAME -->  a whole runbook that a shell block reads as NAME
//   <!-- example: runbook-fragment -->   a list of steps, or top-level keys (inputs:, outputs:,
//                                        onFailure: …) of a runbook; see FRAGMENT_BASE
//   <!-- example: local-cloud-config --> the local cloud's --config file
//   <!-- example: worker-config -->      the worker's TIDELINE_CONFIG file
//   <!-- example: state-file -->         a state file (kind: State), as if at the repository's root
//   <!-- example: mcp-client-config -->  an MCP client's servers (mcpServers / servers) that run
//                                        `tideline mcp …`: each command line must be one the CLI takes
//   <!-- example: partial: REASON -->    deliberately incomplete (`{ … }`, placeholders): not checked
//
// Shell blocks (sh, bash, shell, console) are split into commands, and each command must be one
// this checkout has: `tideline …` (or `node bin/tideline.js …`) a command, subcommand and flags the
// CLI accepts — `validate` and `plan` are run for real, on the runbooks the docs show; `npm run X`
// a script of package.json, with flags its program reads; `curl` against the local cloud is run
// against one; files, docker compose profiles and services, search attribute names and TIDELINE_*
// variables must exist. A command this test does not know fails it, so a new kind of command in
// the docs comes with a check.
import { loadStateText } from '../../state/state-file';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { runCli } from '../../cli/main';
import { checkRunbookText } from '../../dsl/loader';
import { parseConfig } from '../../local-cloud/config';
import { startLocalCloud, type LocalCloud } from '../../local-cloud/server';
import { WorkerConfigSchema } from '../../worker/config-schema';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { capturedStreams } from '../helpers/captured-streams';
import { DOCS_PAGES, REPO_ROOT } from '../helpers/docs-pages';

const REPO = REPO_ROOT;
const PAGES = DOCS_PAGES;
const TEXT = new Map(PAGES.map((page) => [page, readFileSync(path.join(REPO, page), 'utf8')]));

interface Block {
  page: string;
  line: number;
  lang: string;
  kind: string;
  /** What the marker says after the kind, e.g. `file=my-runbook.yaml`. */
  extra: string;
  text: string;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

/** The fenced blocks of a page, with the kind their marker gives (or '' when unmarked). */
function blocks(page: string): Block[] {
  const lines = (TEXT.get(page) ?? '').split('\n');
  const found: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^\s*```(\w*)\s*$/.exec(lines[index] ?? '');
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && /^\s*```\s*$/.test(line));
    if (end < 0) throw new Error(`${page}:${index + 1}: a code block that never closes`);
    let before = index - 1;
    while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
    const marker = /^<!-- example: ([\w-]+)(.*)-->\s*$/.exec(lines[before] ?? '');
    found.push({
      page,
      line: index + 1,
      lang: open[1] ?? '',
      kind: marker?.[1] ?? '',
      extra: marker?.[2]?.trim() ?? '',
      text: lines.slice(index + 1, end).join('\n'),
    });
    index = end;
  }
  return found;
}

const ALL = PAGES.flatMap(blocks);

// ---------------------------------------------------------------------------------------------
// YAML and JSON

/**
 * What a fragment is placed in: the inputs and a `create` step the docs' fragments read. A
 * fragment's own keys replace these (its `steps` come after `create` unless it defines `create`).
 */
const FRAGMENT_BASE = {
  apiVersion: 'tideline/v1',
  name: 'readme-example',
  description: 'A documentation example, placed in a runbook.',
  inputs: {
    project_id: { type: 'string' },
    name: { type: 'string' },
    dry_run: { type: 'boolean', default: false },
    password: { type: 'string', secret: true },
  },
  steps: [
    {
      id: 'create',
      call: 'service.create',
      with: { project_id: '${{ inputs.project_id }}', name: '${{ inputs.name }}' },
    },
  ],
};

function placeFragment(fragment: unknown): Record<string, unknown> {
  const own = Array.isArray(fragment) ? { steps: fragment } : (fragment as Record<string, unknown>);
  const steps = Array.isArray(own.steps) ? (own.steps as { id?: unknown }[]) : undefined;
  const merged: Record<string, unknown> = { ...FRAGMENT_BASE, ...own };
  if (steps !== undefined && !steps.some((step) => step.id === 'create'))
    merged.steps = [...FRAGMENT_BASE.steps, ...steps];
  return merged;
}

/** The problems of a runbook, as `line:column: message` (empty when it is valid). */
function runbookProblems(text: string): string[] {
  // As if it sat in runbooks/, so child runbooks (`./rotate-password.yaml`) resolve to shipped ones.
  const check = checkRunbookText(text, path.join(REPO, 'runbooks', 'readme-example.yaml'));
  return check.problems.map((p) => `${p.line ?? '?'}:${p.column ?? '?'}: ${p.message}`);
}

function problemsOf(example: Pick<Block, 'lang' | 'kind' | 'text'>): string[] {
  const value: unknown = example.lang === 'json' ? JSON.parse(example.text) : parse(example.text);
  switch (example.kind) {
    case 'runbook':
      return runbookProblems(example.text);
    case 'runbook-fragment':
      return runbookProblems(stringify(placeFragment(value)));
    case 'local-cloud-config':
      try {
        parseConfig(value, 'docs');
        return [];
      } catch (error) {
        return [error instanceof Error ? error.message : String(error)];
      }
    case 'worker-config': {
      const parsed = WorkerConfigSchema.safeParse(value);
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    }
    case 'state-file': {
      const loaded = loadStateText(example.text, path.join(REPO, 'readme-example.state.yaml'), (f) => f);
      return loaded.ok ? [] : loaded.problems.map((p) => `${p.line}:${p.column}: ${p.message}`);
    }
    case 'mcp-client-config':
      return mcpClientCommands(value).problems;
    default:
      return [`unknown kind "${example.kind}"`];
  }
}

/** The `tideline` command lines an MCP client's configuration runs, and what is wrong with its shape. */
function mcpClientCommands(value: unknown): { commands: string[][]; problems: string[] } {
  const config = value as { mcpServers?: unknown; servers?: unknown } | null;
  const servers = config?.mcpServers ?? config?.servers;
  if (typeof servers !== 'object' || servers === null)
    return { commands: [], problems: ['no mcpServers or servers'] };
  const commands: string[][] = [];
  const problems: string[] = [];
  for (const [name, server] of Object.entries(
    servers as Record<string, { command?: unknown; args?: unknown }>,
  )) {
    const args = server.args;
    if (server.command !== 'tideline' || !Array.isArray(args) || args[0] !== 'mcp')
      problems.push(`${name}: must run \`tideline mcp …\` (command "tideline", args starting with "mcp")`);
    else commands.push(args.map(String));
  }
  return { commands, problems };
}

const data = ALL.filter((block) => block.lang === 'yaml' || block.lang === 'json');
const checked = data
  .map((block) => ({
    ...block,
    kind: block.kind === '' && /^apiVersion: tideline\/v1$/m.test(block.text) ? 'runbook' : block.kind,
  }))
  .filter((block) => block.kind !== 'partial');

describe('YAML and JSON examples', () => {
  test('there are examples, and every YAML/JSON block says what it is', () => {
    expect(checked.length).toBeGreaterThanOrEqual(7);
    const unmarked = checked
      .filter((block) => block.kind === '')
      .map(
        (block) =>
          `${block.page}:${block.line}: mark it, e.g. <!-- example: runbook-fragment --> (see this test)`,
      );
    expect(unmarked).toEqual([]);
  });

  test.each(checked.map((block) => [`${block.page}:${block.line}`, block.kind, block] as const))(
    '%s (%s) is valid',
    (_where, _kind, block) => {
      expect(problemsOf(block)).toEqual([]);
    },
  );

  test('every code block names its language, so none escapes these checks', () => {
    expect(ALL.filter((block) => block.lang === '').map((block) => `${block.page}:${block.line}`)).toEqual(
      [],
    );
  });

  test('a partial block says why it is not checked', () => {
    for (const block of data.filter((b) => b.kind === 'partial')) {
      const lines = (TEXT.get(block.page) ?? '').split('\n');
      const marker =
        lines
          .slice(0, block.line - 1)
          .reverse()
          .find((line) => line.trim() !== '') ?? '';
      expect(marker).toMatch(/^<!-- example: partial: \S.*-->$/);
    }
  });

  test('the checker catches what it is there for', () => {
    expect(
      runbookProblems(
        stringify(placeFragment([{ id: 'x', foreach: '${{ steps.list.output }}', steps: [] }])),
      ),
    ).not.toEqual([]);
    expect(
      problemsOf({
        lang: 'yaml',
        kind: 'local-cloud-config',
        text: 'projects: [{ access_key: A, secret_key: S }]',
      }),
    ).not.toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Shell

interface ShellCommand {
  where: string;
  /** The command as shown (continuations joined, comment removed). */
  text: string;
  /** Words, quotes removed; leading `NAME=value` assignments removed. */
  words: string[];
  /** The `NAME=value` assignments before the command. */
  env: Record<string, string>;
}

/** Splits a command line into words as a POSIX shell would, closely enough for the docs. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? undefined : end);
      i = end < 0 ? line.length : end;
      started = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) word += line[j] === '\\' ? (line[++j] ?? '') : line[j];
      i = j;
      started = true;
    } else if (c === '$' && line[i + 1] === '(') {
      let depth = 0;
      let j = i;
      for (; j < line.length; j++) {
        if (line[j] === '(') depth++;
        if (line[j] === ')' && --depth === 0) break;
      }
      word += line.slice(i, j + 1);
      i = j;
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

/** Removes a `# comment` that is not inside quotes. */
function withoutComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) return line.slice(0, i).trimEnd();
  }
  return line;
}

/** The commands of a shell block: continuations joined, comments dropped, `&&` and `;` split. */
function shellCommands(block: Block): ShellCommand[] {
  const lines = block.text.split('\n');
  const commands: ShellCommand[] = [];
  for (let index = 0; index < lines.length; index++) {
    const first = index;
    let line = lines[index] ?? '';
    if (block.lang === 'console') {
      if (!line.startsWith('$ ')) continue; // output
      line = line.slice(2);
    }
    line = withoutComment(line);
    while (line.endsWith('\\') && index + 1 < lines.length)
      line = `${line.slice(0, -1)} ${withoutComment(lines[++index] ?? '').trim()}`;
    for (const part of line.split(/\s(?:&&|;)\s/)) {
      const words = shellWords(part);
      const env: Record<string, string> = {};
      while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '') && words[0] !== undefined) {
        const [name, ...value] = (words.shift() as string).split('=');
        env[name as string] = value.join('=');
      }
      if (words.length === 0 && Object.keys(env).length === 0) continue;
      commands.push({ where: `${block.page}:${block.line + first + 1}`, text: part.trim(), words, env });
    }
  }
  return commands;
}

const shellBlocks = ALL.filter((block) => SHELL_LANGS.has(block.lang));
const commands = shellBlocks.flatMap(shellCommands);

const PACKAGE = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** Source files (TypeScript and JavaScript) under a folder of the repository. */
function sourcesUnder(folder: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'build' || entry.name === 'results') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|js|mjs)$/.test(entry.name)) files.push(full);
    }
  };
  walk(path.join(REPO, folder));
  return files;
}

const CODE = [
  'cli',
  'stack',
  'cluster',
  'rehearsal',
  'contract',
  'worker',
  'local-cloud',
  'cloud',
  'activities',
  'workflows',
  'dsl',
  'scripts',
  'bench',
]
  .flatMap(sourcesUnder)
  .map((file) => readFileSync(file, 'utf8'))
  .concat(readFileSync(path.join(REPO, 'docker-compose.yml'), 'utf8'))
  .join('\n');
const BENCH_CODE = sourcesUnder('bench')
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const COMPOSE = parse(readFileSync(path.join(REPO, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, { profiles?: string[] }>;
};

interface Ran {
  code: number;
  out: string;
  err: string;
}

async function tideline(args: string[], cwd: string): Promise<Ran> {
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli(args, {
    stdout,
    stderr,
    env: { TIDELINE_ENCRYPTION_KEYS: `docs:${Buffer.alloc(32, 7).toString('base64')}` },
    cwd,
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}

/** Where shown runbooks are written, beside a link to the shipped ones, as in a checkout. */
let workspace = '';
let cloud: LocalCloud | undefined;

beforeAll(async () => {
  workspace = mkdtempSync(path.join(os.tmpdir(), 'tideline-docs-'));
  symlinkSync(path.join(REPO, 'runbooks'), path.join(workspace, 'runbooks'));
  for (const block of ALL) {
    const file = /(?:^|\s)file=(\S+)/.exec(block.extra)?.[1];
    if (file !== undefined) writeFileSync(path.join(workspace, file), block.text);
  }
  cloud = await startLocalCloud({ port: 0, timeScale: 0.01 });
});

afterAll(async () => {
  await cloud?.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** How a `tideline` command line is checked: run for real, or parsed with `--help` appended. */
const RUN_FOR_REAL = new Set(['validate', 'plan']);

async function checkTideline(args: string[]): Promise<string[]> {
  const words = args.map((word) => word.replace(/^\[|\]$/g, '')).filter((word) => word !== '');
  const command = words.find((word) => !word.startsWith('-'));
  if (command !== undefined && RUN_FOR_REAL.has(command)) {
    const ran = await tideline(words, workspace);
    return ran.code === 0 ? [] : [`exit ${ran.code}: ${ran.out}${ran.err}`];
  }
  // parseArgs is strict: an unknown command, subcommand or flag is a usage error even with --help.
  const ran = await tideline([...words, '--help'], workspace);
  if (ran.code !== 0) return [`not a command line the CLI accepts (exit ${ran.code}): ${ran.err.trim()}`];
  if (command === 'cluster') {
    const actions = /cluster ([\w|]+)/.exec(ran.out)?.[1]?.split('|') ?? [];
    const action = words[words.indexOf('cluster') + 1] ?? '';
    if (!actions.includes(action)) return [`cluster has no action "${action}" (${actions.join(', ')})`];
  }
  return [];
}

/** The flags after `npm run SCRIPT --`, checked against the program the script runs. */
async function checkScriptArgs(script: string, args: string[]): Promise<string[]> {
  const body = PACKAGE.scripts[script] ?? '';
  if (args.length === 0) return [];
  const cli = /node bin\/tideline\.js (\S+)$/.exec(body)?.[1];
  if (cli !== undefined) return checkTideline([cli, ...args]);
  if (body.includes('dist/local-cloud/main.js')) return checkTideline(['local-cloud', ...args]); // the same flags
  if (body.includes('bench/build/bench/')) {
    const problems: string[] = [];
    for (const flag of args.filter((word) => word.startsWith('--'))) {
      const name = flag.slice(2).split('=')[0] as string;
      if (!BENCH_CODE.includes(`--${name}`) && !BENCH_CODE.includes(`'${name}'`))
        problems.push(`bench reads no flag ${flag}`);
    }
    return problems;
  }
  return [`no check for the arguments of npm run ${script}: teach this test`];
}

async function checkCurl(command: ShellCommand): Promise<string[]> {
  const local = cloud as LocalCloud;
  const project = local.projects[0] as { id: string; access_key: string; secret_key: string };
  const port = new URL(local.origin).port;
  const line = command.text
    .replace(/ACCESS_KEY:SECRET_KEY/g, `${project.access_key}:${project.secret_key}`)
    .replace(/127\.0\.0\.1:(PORT|\d+)/g, `127.0.0.1:${port}`)
    .replace(/PROJECT_ID/g, project.id);
  try {
    // Not execFileSync: the local cloud answers from this process, so the event loop must run.
    const { stdout: out } = await promisify(execFile)(
      'bash',
      ['-c', `${line} --fail --silent --show-error --max-time 10`],
      { env: { ...process.env, TOKEN: local.controlToken ?? '' }, encoding: 'utf8' },
    );
    return typeof JSON.parse(out) === 'object' ? [] : ['the answer is not a JSON object'];
  } catch (error) {
    return [`curl failed: ${error instanceof Error ? error.message : String(error)}`];
  }
}

function checkFile(file: string): string[] {
  return existsSync(path.join(REPO, file)) ? [] : [`${file} does not exist`];
}

/** The problems of one shell command: empty when the command exists and is used as it accepts. */
async function problemsOfCommand(command: ShellCommand): Promise<string[]> {
  const problems: string[] = [];
  for (const variable of command.text.match(/\bTIDELINE_[A-Z0-9_]+/g) ?? [])
    if (!CODE.includes(variable)) problems.push(`nothing reads ${variable}`);
  const [program, ...args] = command.words;
  if (program === undefined) return problems; // assignments only
  if (program === 'tideline') return [...problems, ...(await checkTideline(args))];
  if (program === 'node' && args[0] === 'bin/tideline.js')
    return [...problems, ...(await checkTideline(args.slice(1)))];
  if (program === 'node') return [...problems, ...checkFile(args[0] ?? '')];
  if (program === 'npm') {
    const [verb, script, ...rest] = args;
    if (verb === 'test')
      return PACKAGE.scripts.test ? problems : [...problems, 'package.json has no test script'];
    if (verb === 'link') return problems;
    if (verb !== 'run' || script === undefined)
      return [...problems, `no check for npm ${verb ?? ''}: teach this test`];
    if (PACKAGE.scripts[script] === undefined) return [...problems, `package.json has no script "${script}"`];
    const at = rest.indexOf('--');
    return [...problems, ...(await checkScriptArgs(script, at < 0 ? [] : rest.slice(at + 1)))];
  }
  if (program === 'npx' && args[0] === 'jest') {
    return [
      ...problems,
      ...args
        .slice(1)
        .filter((word) => !word.startsWith('-'))
        .flatMap(checkFile),
    ];
  }
  if (program === 'curl') {
    if (!/http:\/\/127\.0\.0\.1:/.test(command.text))
      return [...problems, 'curl reaches only the local cloud here'];
    return [...problems, ...(await checkCurl(command))];
  }
  if (program === 'export') return problems; // the variables are checked above
  if (program === 'echo') return problems;
  if (program === 'docker' && args[0] === 'compose') {
    for (let i = 1; i < args.length; i++) {
      const word = args[i] as string;
      if (word === '--profile') {
        const profile = args[++i] ?? '';
        if (!Object.values(COMPOSE.services).some((s) => s.profiles?.includes(profile)))
          problems.push(`docker-compose.yml has no profile ${profile}`);
      } else if (/^[a-z][a-z-]+$/.test(word) && word.includes('-') && COMPOSE.services[word] === undefined) {
        problems.push(`docker-compose.yml has no service ${word}`);
      }
    }
    return problems;
  }
  if (program === 'temporal') {
    const known = TIDELINE_SEARCH_ATTRIBUTES.map((attribute) => attribute.name);
    for (const name of command.text.match(/\bTideline[A-Z]\w*/g) ?? [])
      if (!known.includes(name)) problems.push(`no search attribute ${name}`);
    return problems;
  }
  if (program === '.tools/bin/tiger') {
    const setup = readFileSync(path.join(REPO, 'scripts', 'setup-tiger-cli.js'), 'utf8');
    return /path\.join\(toolsDir, 'bin', `tiger/.test(setup)
      ? problems
      : [...problems, 'nothing builds .tools/bin/tiger'];
  }
  return [...problems, `no check for "${program}": teach this test what it means`];
}

describe('shell examples', () => {
  test('there are shell blocks in the README and in docs/, and every one has a command', () => {
    expect(shellBlocks.some((block) => block.page === 'README.md')).toBe(true);
    expect(shellBlocks.some((block) => block.page.startsWith('docs/'))).toBe(true);
    expect(commands.length).toBeGreaterThanOrEqual(40);
    const empty = shellBlocks.filter((block) => shellCommands(block).length === 0);
    expect(empty.map((block) => `${block.page}:${block.line}`)).toEqual([]);
  });

  test.each(
    checked
      .filter((block) => block.kind === 'mcp-client-config')
      .map((block) => [`${block.page}:${block.line}`, block] as const),
  )('%s: the MCP client runs command lines the CLI takes', async (_where, block) => {
    const { commands: lines } = mcpClientCommands(JSON.parse(block.text));
    expect(lines.length).toBeGreaterThan(0);
    for (const args of lines) expect(await checkTideline(args)).toEqual([]);
  });

  test('the runbooks the shell blocks read are shown', () => {
    const read = commands
      .filter((command) => command.words.includes('validate') || command.words.includes('plan'))
      .flatMap((command) => command.words.filter((word) => word.endsWith('.yaml')));
    expect(read.length).toBeGreaterThan(0);
    for (const file of read) expect(statSync(path.join(workspace, file)).isFile()).toBe(true);
  });

  test.each(commands.map((command) => [command.where, command.text, command] as const))(
    '%s: %s',
    async (_where, _text, command) => {
      expect(await problemsOfCommand(command)).toEqual([]);
    },
    30_000,
  );

  test('the checker catches what it is there for', async () => {
    const command = (text: string): ShellCommand => ({
      where: 'test',
      text,
      words: shellWords(text),
      env: {},
    });
    expect(await problemsOfCommand(command('tideline runn x.yaml'))).not.toEqual([]);
    expect(await problemsOfCommand(command('tideline run x.yaml --no-such-flag'))).not.toEqual([]);
    expect(await problemsOfCommand(command('tideline schedule frobnicate'))).not.toEqual([]);
    expect(await problemsOfCommand(command('tideline cluster sideways'))).not.toEqual([]);
    expect(await problemsOfCommand(command('npm run no-such-script'))).not.toEqual([]);
    expect(await problemsOfCommand(command('npm run bench -- --no-such-figure'))).not.toEqual([]);
    expect(await problemsOfCommand(command('npm run local-cloud -- --no-such-flag'))).not.toEqual([]);
    expect(await problemsOfCommand(command('export TIDELINE_NO_SUCH_VARIABLE=1'))).not.toEqual([]);
    expect(await problemsOfCommand(command('docker compose --profile nope up'))).not.toEqual([]);
    expect(
      await problemsOfCommand(command('temporal workflow list --query "TidelineNope = \'x\'"')),
    ).not.toEqual([]);
    expect(await problemsOfCommand(command('tideline validate runbooks/no-such.yaml'))).not.toEqual([]);
    expect(await problemsOfCommand(command('rm -rf /'))).not.toEqual([]);
  });
});
