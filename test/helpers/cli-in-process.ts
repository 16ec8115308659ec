// The CLI run in this process (cli/main.ts runCli) against a test's Temporal server and task
// queue, with the test keys, no colour and no home directory: what an operator types, without
// spawning a process.
import { runCli } from '../../cli/main';
import { capturedStreams } from './captured-streams';
import { TEST_ENCRYPTION_KEYS } from './worker-process';

export interface InProcessResult {
  code: number;
  out: string;
  err: string;
}

export async function runCliAgainst(
  target: { address: string; taskQueue: string },
  args: string[],
): Promise<InProcessResult> {
  const { stdout, stderr, out, err } = capturedStreams();
  const code = await runCli([...args, '--address', target.address, '--task-queue', target.taskQueue], {
    stdout,
    stderr,
    env: { HOME: '/nonexistent', TIDELINE_ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS, NO_COLOR: '1' },
    cwd: process.cwd(),
    interrupted: new Promise(() => undefined),
  });
  return { code, out: out(), err: err() };
}
