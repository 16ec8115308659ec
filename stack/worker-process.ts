// A tideline worker as its own OS process (`node <entry>`), under supervision, ready once it
// prints the ready line: the stock worker (dist/worker/main.js), a release's, or the tuned bench
// worker. Tests and benchmarks run workers this way to SIGKILL them or read their /proc figures.
import { existsSync } from 'node:fs';
import { READY_LINE } from '../worker/main';
import { spawnProcess, type SpawnProcess } from './local-temporal';
import type { SupervisedProcess } from './supervised-process';

/** What worker/main.ts (and the tuned bench worker) print once the worker is about to poll. */
export const WORKER_READY = new RegExp(READY_LINE);

export interface WorkerProcessLaunch {
  /** The compiled worker entry, e.g. `<repo>/dist/worker/main.js`. */
  entry: string;
  /** Settings of the worker (TEMPORAL_ADDRESS, TIDELINE_*), over the inherited environment. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Node flags, e.g. a heap limit. */
  nodeArgs?: readonly string[] | undefined;
  label?: string | undefined;
  /** Wait for the ready line; default true. */
  waitUntilReady?: boolean | undefined;
  readyTimeoutMs?: number | undefined;
  /** What the entry is missing for, e.g. "run `npm run build` first". */
  missingHint?: string | undefined;
  /** Default: `spawnSupervised` (killed when this process exits). */
  spawn?: SpawnProcess | undefined;
}

/**
 * The worker's environment: the inherited one without TEMPORAL_* and TIDELINE_* (so only what the
 * caller sets applies), then `settings`.
 */
export function workerProcessEnv(
  settings: NodeJS.ProcessEnv,
  inherited: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (!name.startsWith('TEMPORAL_') && !name.startsWith('TIDELINE_')) base[name] = value;
  }
  return { ...base, ...settings };
}

/** Starts the worker and, unless told otherwise, resolves once it polls; one that does not is killed. */
export async function startWorkerProcess(launch: WorkerProcessLaunch): Promise<SupervisedProcess> {
  if (!existsSync(launch.entry)) {
    throw new Error(`${launch.entry} is missing${launch.missingHint ? `: ${launch.missingHint}` : ''}`);
  }
  const spawn = launch.spawn ?? spawnProcess;
  const worker = spawn(process.execPath, [...(launch.nodeArgs ?? []), launch.entry], {
    env: workerProcessEnv(launch.env),
    cwd: launch.cwd,
    label: launch.label ?? 'tideline worker process',
  });
  if (launch.waitUntilReady ?? true) {
    try {
      await worker.waitForOutput(WORKER_READY, launch.readyTimeoutMs ?? 60_000);
    } catch (error) {
      await worker.kill();
      throw error;
    }
  }
  return worker;
}
