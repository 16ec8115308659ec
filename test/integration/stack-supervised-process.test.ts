// A supervised process (stack/supervised-process.ts) does not keep its parent's event loop
// alive, yet a parent whose last work is awaiting its stop or kill must live to see it: otherwise
// the parent ends right there with code 0 and never runs what follows (as `tideline test` once did
// after stopping its server: no summary, and exit 0 with a failed case).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { spawnSupervised } from '../../stack/supervised-process';

const SUPERVISED = path.resolve(__dirname, '..', '..', 'dist', 'stack', 'supervised-process.js');

function parentThatAwaits(how: 'kill' | 'stop'): { status: number | null; stdout: string; stderr: string } {
  const script = `
    const { spawnSupervised } = require(${JSON.stringify(SUPERVISED)});
    (async () => {
      const child = spawnSupervised('sleep', ['300'], { label: 'sleeper' });
      const exit = await child.${how}();
      console.log('after ${how}: ' + JSON.stringify(exit));
      process.exitCode = 3;
    })();`;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test.each(['kill', 'stop'] as const)('a parent awaiting %s() goes on once the process has exited', (how) => {
  const result = parentThatAwaits(how);
  expect(result).toMatchObject({ status: 3, stderr: '' });
  // How the guard ended (by its own SIGKILL, by the SIGTERM before or after it forwarded it, or
  // by the kill's SIGUSR1 before it set its trap) is not the point: that the parent went on is.
  expect(result.stdout).toMatch(
    new RegExp(`^after ${how}: \\{"code":(null|\\d+),"signal":("SIG[A-Z0-9]+"|null)\\}$`, 'm'),
  );
});

test('kill() resolves once the command itself is gone, not only its guard', async () => {
  // The command prints its own pid, then becomes `sleep`. Once kill() resolves, that pid must not
  // exist at all (not even as a zombie waiting for a reaper): a killed server's ports are free then.
  for (let round = 0; round < 5; round += 1) {
    const child = spawnSupervised('/bin/sh', ['-c', 'echo "pid=$$"; exec sleep 300'], { label: 'sleeper' });
    const out = await child.waitForOutput(/pid=\d+/, 10_000);
    const commandPid = Number(/pid=(\d+)/.exec(out)?.[1]);
    const exit = await child.kill();
    expect(exit.signal).toBe('SIGKILL');
    expect(() => process.kill(commandPid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }
});
