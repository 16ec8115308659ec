// `tideline mcp install CLIENT`: adds `tideline mcp` to an MCP client's configuration — the
// project's file by default, the user's with --user — or prints the snippet (--print). The file's
// other servers and settings are kept; a `tideline` entry that differs is replaced only with
// --force. No token is ever written: an HTTP entry reads it from TIDELINE_MCP_TOKEN.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  MCP_CLIENTS,
  TOKEN_VARIABLE,
  clientConfigFile,
  configSnippet,
  mergeServerEntry,
  serverEntry,
  type McpClient,
  type ServerTarget,
} from '../../mcp/client-configs';
import { assertNever } from '../../cloud/assert-never';
import { parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { MCP_SPEC } from './mcp';

/** The server's arguments when none are given after `--`: the project's runbooks folder. */
const DEFAULT_SERVER_ARGS = ['--runbooks', 'runbooks'];

export const MCP_INSTALL_SPEC = {
  name: 'mcp install',
  usage: `${MCP_CLIENTS.join('|')} [--user] [--print] [--force] [--http URL] [-- MCP-OPTIONS…]`,
  summary: "add tideline mcp to an MCP client's configuration",
  description: [
    "Adds a `tideline` server to the client's configuration: the project's file (Claude Code",
    ".mcp.json, Cursor .cursor/mcp.json, VS Code .vscode/mcp.json) or with --user the user's own",
    "(~/.claude.json, ~/.cursor/mcp.json, VS Code's User/mcp.json). The client starts",
    '`tideline mcp` with the options after `--` (default: --runbooks runbooks); with --http URL the',
    `entry connects to a running \`tideline mcp --http\` instead, its bearer token read from ${TOKEN_VARIABLE}`,
    "in the client's environment; no token is written. Other servers in the file are kept; a",
    'different `tideline` entry is refused (FILE_EXISTS) unless --force. --print only prints the snippet.',
  ],
  options: {
    user: { type: 'boolean' },
    print: { type: 'boolean' },
    force: { type: 'boolean' },
    http: { type: 'string' },
  },
  optionHelp: [
    ['--user', "write the user's configuration instead of the project's"],
    ['--print', 'print the snippet, write nothing'],
    ['--force', 'replace a different existing tideline entry'],
    ['--http URL', `connect to tideline mcp --http at URL (token from ${TOKEN_VARIABLE})`],
  ],
  examples: [
    'tideline mcp install claude-code',
    'tideline mcp install cursor -- --config worker.yaml --profile operate --agent-name mcp:cursor',
    'tideline mcp install vscode --print',
    'tideline mcp install claude-code --http http://127.0.0.1:8808/mcp',
  ],
  positionals: { min: 1, max: 1, names: `the client (${MCP_CLIENTS.join(', ')})` },
} satisfies CommandSpec;

function clientOf(name: string): McpClient {
  const client = MCP_CLIENTS.find((known) => known === name);
  if (client === undefined)
    throw new CliError('CLI_USAGE', `unknown MCP client "${name}"`, `known: ${MCP_CLIENTS.join(', ')}`);
  return client;
}

/** What the entry runs: the server options are checked as `tideline mcp` would take them. */
function targetOf(ctx: CliContext, http: string | undefined, serverArgs: string[]): ServerTarget {
  if (http !== undefined) {
    if (serverArgs.length > 0)
      throw new CliError('CLI_USAGE', '--http connects to a running server: give its options where it runs');
    let url: URL;
    try {
      url = new URL(http);
    } catch {
      throw new CliError(
        'CLI_USAGE',
        `--http must be a URL such as http://127.0.0.1:8808/mcp`,
        `got ${JSON.stringify(http)}`,
      );
    }
    return { kind: 'http', url: url.href };
  }
  const args = serverArgs.length > 0 ? serverArgs : DEFAULT_SERVER_ARGS;
  parseCommand(MCP_SPEC, args, { ...ctx, globals: { ...ctx.globals } });
  return { kind: 'stdio', args };
}

function readDocument(file: string): unknown {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(
      'CLI_USAGE',
      `${file} is not JSON tideline can merge into (${(error as Error).message})`,
      'add the snippet by hand: run the same command with --print',
    );
  }
}

export const mcpInstallCommand: Command = async (argv, ctx) => {
  const split = argv.indexOf('--');
  const own = split === -1 ? argv : argv.slice(0, split);
  const serverArgs = split === -1 ? [] : argv.slice(split + 1);
  const { values, positionals } = parseCommand(MCP_INSTALL_SPEC, own, ctx);
  const client = clientOf(positionals[0] ?? '');
  const entry = serverEntry(client, targetOf(ctx, values.http, serverArgs));
  if (values.print === true) {
    ctx.stdout.write(`${JSON.stringify(configSnippet(client, entry), null, 2)}\n`);
    return EXIT.OK;
  }
  const file =
    values.user === true
      ? clientConfigFile(client, {
          scope: 'user',
          home: ctx.env.HOME || os.homedir(),
          platform: process.platform,
          ...(ctx.env.APPDATA !== undefined && { appData: ctx.env.APPDATA }),
        })
      : clientConfigFile(client, { scope: 'project', root: ctx.cwd });
  const merged = mergeServerEntry(client, readDocument(file), entry, values.force === true);
  switch (merged.kind) {
    case 'not-an-object':
      throw new CliError(
        'CLI_USAGE',
        `${file}: ${merged.where} is not a JSON object`,
        'fix the file, or use --print',
      );
    case 'different':
      throw new CliError(
        'FILE_EXISTS',
        `${file} already has a different "tideline" server`,
        `it is ${JSON.stringify(merged.existing)}; --force replaces it`,
      );
    case 'unchanged':
      ctx.stdout.write(`${file}: the tideline server is there already\n`);
      return EXIT.OK;
    case 'added':
    case 'replaced':
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(merged.document, null, 2)}\n`);
      ctx.stdout.write(`${file}: tideline server ${merged.kind}\n`);
      return EXIT.OK;
    default:
      return assertNever(merged);
  }
};
