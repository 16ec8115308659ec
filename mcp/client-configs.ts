// How each MCP client is told to run `tideline mcp`: where its configuration file is (in the
// project, or the user's own), which key holds its servers, and what a server entry looks like —
// a command line over stdio, or the Streamable HTTP address with the bearer token taken from an
// environment variable in the client's own syntax, never the token itself. Merging keeps every
// other server and setting of the file; a different `tideline` entry is only replaced on request.
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

export const MCP_CLIENTS = ['claude-code', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The name the server has in every client's configuration. */
export const SERVER_ENTRY_NAME = 'tideline';
/** The variable the bearer token of an HTTP server is read from. */
export const TOKEN_VARIABLE = 'TIDELINE_MCP_TOKEN';

interface ClientFormat {
  /** The key of the file's object that holds the servers by name. */
  serversKey: 'mcpServers' | 'servers';
  /** The configuration file in a project, relative to its root. */
  projectFile: string;
  /** The user's own configuration file, from the home folder and the platform. */
  userFile(home: string, platform: NodeJS.Platform, appData: string | undefined): string;
  /** How the client writes the value of an environment variable inside a string. */
  variable(name: string): string;
  /** Whether a stdio entry names its type. */
  typedStdio: boolean;
}

function vscodeUserDir(home: string, platform: NodeJS.Platform, appData: string | undefined): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Code', 'User');
  if (platform === 'win32')
    return path.join(appData ?? path.join(home, 'AppData', 'Roaming'), 'Code', 'User');
  return path.join(home, '.config', 'Code', 'User');
}

const FORMATS: Record<McpClient, ClientFormat> = {
  'claude-code': {
    serversKey: 'mcpServers',
    projectFile: '.mcp.json',
    userFile: (home) => path.join(home, '.claude.json'),
    variable: (name) => `\${${name}}`,
    typedStdio: false,
  },
  cursor: {
    serversKey: 'mcpServers',
    projectFile: path.join('.cursor', 'mcp.json'),
    userFile: (home) => path.join(home, '.cursor', 'mcp.json'),
    variable: (name) => `\${env:${name}}`,
    typedStdio: false,
  },
  vscode: {
    serversKey: 'servers',
    projectFile: path.join('.vscode', 'mcp.json'),
    userFile: (home, platform, appData) => path.join(vscodeUserDir(home, platform, appData), 'mcp.json'),
    variable: (name) => `\${env:${name}}`,
    typedStdio: true,
  },
};

/** What the entry makes the client do: start `tideline` with `args`, or connect to `url`. */
export type ServerTarget = { kind: 'stdio'; args: string[] } | { kind: 'http'; url: string };

/** The client's configuration file: the project's (under `root`) or the user's. */
export function clientConfigFile(
  client: McpClient,
  where:
    | { scope: 'project'; root: string }
    | { scope: 'user'; home: string; platform: NodeJS.Platform; appData?: string },
): string {
  const format = FORMATS[client];
  return where.scope === 'project'
    ? path.join(where.root, format.projectFile)
    : format.userFile(where.home, where.platform, where.appData);
}

/** The client's entry for the server. */
export function serverEntry(client: McpClient, target: ServerTarget): Record<string, unknown> {
  const format = FORMATS[client];
  if (target.kind === 'stdio')
    return {
      ...(format.typedStdio && { type: 'stdio' }),
      command: 'tideline',
      args: ['mcp', ...target.args],
    };
  return {
    type: 'http',
    url: target.url,
    headers: { Authorization: `Bearer ${format.variable(TOKEN_VARIABLE)}` },
  };
}

/** The snippet a person pastes into the client's file: the entry under its servers key. */
export function configSnippet(client: McpClient, entry: Record<string, unknown>): Record<string, unknown> {
  return { [FORMATS[client].serversKey]: { [SERVER_ENTRY_NAME]: entry } };
}

export type MergeOutcome =
  | { kind: 'added' | 'replaced' | 'unchanged'; document: Record<string, unknown> }
  | { kind: 'different'; existing: unknown }
  | { kind: 'not-an-object'; where: string };

/** `document` (the file's parsed content; undefined: no file) with the entry set, as decided. */
export function mergeServerEntry(
  client: McpClient,
  document: unknown,
  entry: Record<string, unknown>,
  force: boolean,
): MergeOutcome {
  const { serversKey } = FORMATS[client];
  const root = document ?? {};
  if (!isObject(root)) return { kind: 'not-an-object', where: 'the file' };
  const servers = root[serversKey] ?? {};
  if (!isObject(servers)) return { kind: 'not-an-object', where: `"${serversKey}"` };
  const existing = servers[SERVER_ENTRY_NAME];
  if (existing !== undefined && isDeepStrictEqual(existing, entry))
    return { kind: 'unchanged', document: root };
  if (existing !== undefined && !force) return { kind: 'different', existing };
  return {
    kind: existing === undefined ? 'added' : 'replaced',
    document: { ...root, [serversKey]: { ...servers, [SERVER_ENTRY_NAME]: entry } },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
