// What a local stack started, stopped in reverse order: the worker before the local cloud, the
// Temporal server last. Every part is stopped even when one fails; the first failure is reported
// after all of them (a test's local cloud reports broken answers when it closes).
//
//   const teardown = createTeardown();
//   const server = await startLocalTemporal(…);  teardown.add(() => server.stop());
//   const cloud = await startLoopbackCloud();     teardown.add(() => cloud.close());
//   await teardown.close();                       // cloud, then server
export type Stop = () => Promise<unknown> | void;

export interface Teardown {
  /** Stopped before everything added earlier. */
  add(stop: Stop): void;
  /** Stopped after everything else (a server started alongside the parts that use it). */
  addLast(stop: Stop): void;
  /** Stops each part once, latest first; rejects with the first failure. Safe to call twice. */
  close(): Promise<void>;
}

export function createTeardown(): Teardown {
  const stops: Stop[] = [];
  let closed: Promise<void> | undefined;
  // A part that finished starting after close (started alongside one that failed) is stopped at once.
  const stopLate = (stop: Stop): void => {
    void closed
      ?.catch(() => undefined)
      .then(stop)
      .catch(() => undefined);
  };
  return {
    add(stop) {
      if (closed === undefined) stops.push(stop);
      else stopLate(stop);
    },
    addLast(stop) {
      if (closed === undefined) stops.unshift(stop);
      else stopLate(stop);
    },
    close() {
      closed ??= (async () => {
        const failures: unknown[] = [];
        for (const stop of stops.splice(0).reverse()) {
          try {
            await stop();
          } catch (error) {
            failures.push(error);
          }
        }
        if (failures.length > 0) throw failures[0];
      })();
      return closed;
    },
  };
}

/** Runs `start` and, if it fails, stops what it had started before rethrowing. */
export async function unwindOnFailure<T>(teardown: Teardown, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await teardown.close().catch(() => undefined);
    throw error;
  }
}
