// `tideline mcp install CLIENT` (cli/commands/mcp-install.ts, mcp/client-configs.ts) in a temp
// project and home: the file each client reads gets a `tideline` server that runs `tideline mcp`,
// other servers and settings stay, a different entry is refused without --force, the token of an
// HTTP entry is a reference to the variable, and --print writes nothing.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mcpCommand } from '../../cli/commands/mcp';
import type { CliContext } from '../../cli/context';
import { CliError, EXIT } from '../../cli/errors';
import { capturedStreams } from '../helpers/captured-streams';

let project: string;
let home: string;
beforeEach(() => {
  project = mkdtempSync(path.join(tmpdir(), 'tideline-mcp-install-'));
  home = path.join(project, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

function context(env: NodeJS.ProcessEnv = {}): CliContext & { out: () => string } {
  const { stdout, stderr, out } = capturedStreams();
  return {
    stdout,
    stderr,
    env: { NO_COLOR: '1', HOME: home, ...env },
    cwd: project,
    globals: { json: false },
    interrupted: new Promise(() => undefined),
    out,
  };
}

const install = (args: string[], env?: NodeJS.ProcessEnv) => mcpCommand(['install', ...args], context(env));
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

async function refusal(args: string[]): Promise<CliError> {
  try {
    await install(args);
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('expected the command to refuse');
}

test.each([
  [
    'claude-code',
    '.mcp.json',
    { mcpServers: { tideline: { command: 'tideline', args: ['mcp', '--runbooks', 'runbooks'] } } },
  ],
  [
    'cursor',
    '.cursor/mcp.json',
    { mcpServers: { tideline: { command: 'tideline', args: ['mcp', '--runbooks', 'runbooks'] } } },
  ],
  [
    'vscode',
    '.vscode/mcp.json',
    {
      servers: { tideline: { type: 'stdio', command: 'tideline', args: ['mcp', '--runbooks', 'runbooks'] } },
    },
  ],
])('%s: writes the project file %s', async (client, file, expected) => {
  expect(await install([client])).toBe(EXIT.OK);
  expect(readJson(path.join(project, file))).toEqual(expected);
});

test('merges into an existing file, keeping its other servers and settings; installing again changes nothing', async () => {
  const file = path.join(project, '.mcp.json');
  const other = { command: 'other-server', args: [] };
  writeFileSync(file, JSON.stringify({ mcpServers: { other }, note: 'kept' }));
  await install(['claude-code', '--', '--profile', 'operate', '--agent-name', 'mcp:claude']);
  const written = readJson(file);
  expect(written).toEqual({
    note: 'kept',
    mcpServers: {
      other,
      tideline: { command: 'tideline', args: ['mcp', '--profile', 'operate', '--agent-name', 'mcp:claude'] },
    },
  });
  const ctx = context();
  expect(
    await mcpCommand(
      ['install', 'claude-code', '--', '--profile', 'operate', '--agent-name', 'mcp:claude'],
      ctx,
    ),
  ).toBe(EXIT.OK);
  expect(ctx.out()).toContain('there already');
  expect(readJson(file)).toEqual(written);
});

test('refuses to replace a different tideline entry without --force, and replaces it with it', async () => {
  const file = path.join(project, '.cursor', 'mcp.json');
  await install(['cursor', '--', '--profile', 'operate']);
  const refused = await refusal(['cursor']);
  expect(refused.code).toBe('FILE_EXISTS');
  expect(readJson(file)).toEqual({
    mcpServers: { tideline: { command: 'tideline', args: ['mcp', '--profile', 'operate'] } },
  });
  expect(await install(['cursor', '--force'])).toBe(EXIT.OK);
  expect(readJson(file)).toEqual({
    mcpServers: { tideline: { command: 'tideline', args: ['mcp', '--runbooks', 'runbooks'] } },
  });
});

test("--user writes the user's file; an HTTP entry references the token variable, never a token", async () => {
  await install(['claude-code', '--user', '--http', 'http://127.0.0.1:8808/mcp'], {
    TIDELINE_MCP_TOKEN: 'a-secret-token-value',
  });
  const text = readFileSync(path.join(home, '.claude.json'), 'utf8');
  expect(text).not.toContain('a-secret-token-value');
  expect(JSON.parse(text)).toEqual({
    mcpServers: {
      tideline: {
        type: 'http',
        url: 'http://127.0.0.1:8808/mcp',
        headers: { Authorization: 'Bearer ${TIDELINE_MCP_TOKEN}' },
      },
    },
  });
  await install(['vscode', '--user', '--http', 'http://127.0.0.1:8808/mcp']);
  const vscodeUser =
    process.platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support', 'Code', 'User', 'mcp.json')
      : path.join(home, '.config', 'Code', 'User', 'mcp.json');
  expect(readJson(vscodeUser)).toMatchObject({
    servers: { tideline: { headers: { Authorization: 'Bearer ${env:TIDELINE_MCP_TOKEN}' } } },
  });
});

test('--print prints the snippet and writes nothing', async () => {
  const ctx = context();
  expect(await mcpCommand(['install', 'vscode', '--print'], ctx)).toBe(EXIT.OK);
  expect(JSON.parse(ctx.out())).toEqual({
    servers: { tideline: { type: 'stdio', command: 'tideline', args: ['mcp', '--runbooks', 'runbooks'] } },
  });
  expect(existsSync(path.join(project, '.vscode'))).toBe(false);
});

test('refuses an unknown client, server options tideline mcp does not take, and a file that is not JSON', async () => {
  expect((await refusal(['zed'])).message).toMatch(/unknown MCP client "zed"/);
  expect((await refusal(['cursor', '--', '--bogus'])).code).toBe('CLI_USAGE');
  writeFileSync(path.join(project, '.mcp.json'), '{ // a comment\n}');
  expect((await refusal(['claude-code'])).hint).toMatch(/--print/);
});
