// `tideline mcp` over stdio whose client goes away mid-rehearsal: the real binary rehearses
// start-dev-services with every service.list held for an hour (a fault that never lets the run
// end), and the client closes its end. The rehearsal is cancelled (its answer says so, not a
// timeout), the server exits by itself, and no process it started (the rehearsal's Temporal dev
// server and its guard) outlives it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cliEnvironment, TIDELINE_BIN } from '../helpers/cli-process';
import { MCP_PROTOCOL_VERSION, startMcpStdio, type McpStdioClient } from '../helpers/mcp-stdio';
import { pollUntil } from '../helpers/runbook-fixtures';
import { RUNBOOKS_DIR } from '../helpers/runbook-stack';
import { buildDist } from '../helpers/worker-process';

/** The processes below `root` (children, theirs, …), with their command lines. */
function descendants(root: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .flatMap((match) =>
      match ? [{ pid: Number(match[1]), ppid: Number(match[2]), args: match[3] ?? '' }] : [],
    );
  const found: { pid: number; args: string }[] = [];
  const parents = [root];
  for (let parent = parents.pop(); parent !== undefined; parent = parents.pop()) {
    for (const row of rows.filter((candidate) => candidate.ppid === parent)) {
      found.push({ pid: row.pid, args: row.args });
      parents.push(row.pid);
    }
  }
  return found;
}

/**
 * Whether `pid` still runs: it exists and is no zombie (one that exited, and whose parent, the
 * guard, ended first, waits for init to reap it; here init may not do that soon).
 */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

let home: string;
let server: McpStdioClient | undefined;

beforeAll(async () => {
  await buildDist();
  home = mkdtempSync(path.join(tmpdir(), 'tideline-mcp-gone-'));
});

afterAll(async () => {
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

test('a client that goes away mid-rehearsal: cancelled, the server exits, nothing it started survives', async () => {
  server = startMcpStdio(process.execPath, [TIDELINE_BIN, 'mcp', '--runbooks', RUNBOOKS_DIR], {
    env: cliEnvironment({ HOME: home }),
    requestTimeoutMs: 600_000,
  });
  const pid = server.pid!;
  await server.request('initialize', {
    protocolVersion: MCP_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'Gone', version: '1' },
  });
  server.notify('notifications/initialized');
  const rehearsal = server.callTool('rehearse', {
    runbook: 'start-dev-services',
    inputs: { project_id: 'p1' },
    faults: [{ operation: 'service.list', kind: 'latency', ms: 3_600_000 }],
  });
  // The rehearsal's stack is up: its Temporal dev server runs below the server.
  const started = await pollUntil(
    'the rehearsal’s Temporal dev server',
    async () => descendants(pid),
    (found) => found.some(({ args }) => args.includes('server start-dev')),
    180_000,
  );

  server.endInput();
  const answer = await rehearsal;
  expect(answer).toMatchObject({ isError: true, structuredContent: { code: 'MCP_REHEARSAL_CANCELLED' } });
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(started.filter(({ pid: child }) => running(child))).toEqual([]);
}, 300_000);
