// A dev server that exits at start because a port it bound was taken is started again (it picks
// its HTTP API and metrics ports itself, so a new start picks new ones); when the frontend port was
// taken, the next start takes a new one if the caller gives one; any other exit fails at once.
import { launchDevServer } from '../../stack/temporal-dev-server';
import type { SupervisedProcess } from '../../stack/supervised-process';

function exitedServer(output: string): SupervisedProcess {
  const exit = { code: 1, signal: null };
  return {
    label: 'temporal dev server',
    pid: 0,
    exited: Promise.resolve(exit),
    isRunning: () => false,
    output: () => output,
    waitForOutput: () => Promise.reject(new Error('exited')),
    signal: () => undefined,
    stop: () => Promise.resolve(exit),
  } as unknown as SupervisedProcess;
}

const PORT_TAKEN =
  'failed listening for HTTP API on 127.0.0.1:37329: listen tcp 127.0.0.1:37329: bind: address already in use';

test('a start that lost a port to another process is tried again, three starts in all', async () => {
  const spawned: string[][] = [];
  const launch = launchDevServer({ executable: 'temporal', port: 7233, startTimeoutMs: 5_000 }, (_, args) => {
    spawned.push([...args]);
    return exitedServer(PORT_TAKEN);
  });
  await expect(launch).rejects.toThrow(/exited while starting[\s\S]*address already in use/);
  expect(spawned).toHaveLength(3);
  expect(spawned[0]).toContain('7233');
});

const FRONTEND_TAKEN =
  'level=ERROR msg="can\'t set frontend port 7233: listen tcp 127.0.0.1:7233: bind: address already in use"';

test('a taken frontend port: the same port again, unless the caller gives a new one', async () => {
  const fixed: string[][] = [];
  await expect(
    launchDevServer({ executable: 'temporal', port: 7233, startTimeoutMs: 5_000 }, (_, args) => {
      fixed.push([...args]);
      return exitedServer(FRONTEND_TAKEN);
    }),
  ).rejects.toThrow(/can't set frontend port/);
  expect(fixed.map((args) => args[args.indexOf('--port') + 1])).toEqual(['7233', '7233', '7233']);

  const ports = [7301, 7302];
  const moved: { args: string[]; port: number }[] = [];
  await expect(
    launchDevServer(
      { executable: 'temporal', port: 7233, startTimeoutMs: 5_000 },
      (_, args, port) => {
        moved.push({ args: [...args], port });
        return exitedServer(FRONTEND_TAKEN);
      },
      { newFrontendPort: () => Promise.resolve(ports.shift()!) },
    ),
  ).rejects.toThrow(/can't set frontend port/);
  expect(moved.map(({ args, port }) => [args[args.indexOf('--port') + 1], port])).toEqual([
    ['7233', 7233],
    ['7301', 7301],
    ['7302', 7302],
  ]);
});

test('any other exit at start fails at once', async () => {
  let starts = 0;
  const launch = launchDevServer({ executable: 'temporal', port: 7233, startTimeoutMs: 5_000 }, () => {
    starts++;
    return exitedServer('unknown flag: --db-filename');
  });
  await expect(launch).rejects.toThrow(/unknown flag/);
  expect(starts).toBe(1);
});
