// Waits for the user to stop a long-running command: Ctrl-C (the context's `interrupted`),
// SIGINT or SIGTERM. The listeners are removed again by `dispose()`, so a finished command leaves
// the process's signal handling as it found it.
import type { CliContext } from './context';

export interface StopSignal {
  /** Resolves with the signal's name once one arrives. */
  readonly received: Promise<string>;
  /** The signal received so far, if any. */
  signalled(): string | undefined;
  dispose(): void;
}

export function waitForStopSignal(ctx: CliContext): StopSignal {
  let first: string | undefined;
  let settle: (signal: string) => void = () => undefined;
  const received = new Promise<string>((done) => {
    settle = done;
  });
  const resolve = (signal: string): void => {
    first ??= signal;
    settle(first);
  };
  const onInt = (): void => resolve('SIGINT');
  const onTerm = (): void => resolve('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  void ctx.interrupted.then(() => resolve('SIGINT'));
  return {
    received,
    signalled: () => first,
    dispose() {
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
    },
  };
}
