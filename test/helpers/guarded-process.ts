// Child processes for tests that can never outlive the test run: the CLI's supervised processes
// (stack/supervised-process.ts: a POSIX-shell guard in its own process group, killed with
// its parent even on SIGKILL) with a larger output buffer, and one registry per OS process, so
// every live process is killed when this process exits normally and `stopAllGuarded()` can stop
// them all.
import type { ChildProcess } from 'node:child_process';
import {
  GUARD_SCRIPT,
  signalGroup,
  spawnSupervised,
  type ProcessExit,
  type SupervisedProcess,
  type SupervisedProcessOptions,
} from '../../stack/supervised-process';

export { GUARD_SCRIPT, type ProcessExit };

const OUTPUT_LIMIT = 256 * 1024;

export type GuardedProcessOptions = Pick<SupervisedProcessOptions, 'env' | 'cwd' | 'label'>;

/** Output keeps the last 256 KiB of combined stdout and stderr. */
export type GuardedProcess = SupervisedProcess;

type Registry = Set<ChildProcess>;
const REGISTRY_KEY = Symbol.for('tideline.test.guardedProcesses');

/** One registry and one exit hook per OS process, even when Jest loads this module many times. */
function registry(): Registry {
  const holder = process as unknown as Record<symbol, Registry | undefined>;
  let live = holder[REGISTRY_KEY];
  if (live === undefined) {
    live = new Set();
    holder[REGISTRY_KEY] = live;
    const killAll = live;
    process.once('exit', () => {
      for (const child of killAll) signalGroup(child, 'SIGKILL');
    });
  }
  return live;
}

function track(child: ChildProcess): () => void {
  const live = registry();
  live.add(child);
  return () => live.delete(child);
}

export function spawnGuarded(
  command: string,
  args: readonly string[],
  options: GuardedProcessOptions = {},
): GuardedProcess {
  return spawnSupervised(command, args, { ...options, outputLimit: OUTPUT_LIMIT, track });
}

/** Stops every guarded process this OS process started (for afterAll hooks). */
export async function stopAllGuarded(): Promise<void> {
  const live = [...registry()];
  for (const child of live) signalGroup(child, 'SIGTERM');
  await Promise.all(
    live.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => {
            signalGroup(child, 'SIGKILL');
          }, 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
}
