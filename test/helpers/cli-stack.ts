// A dev stack (Temporal dev server, local cloud, in-process worker) for suites that drive the real
// `tideline` binary against it: builds dist/ once, starts the stack before the suite's tests and
// closes it after them, and runs the CLI with the flags that point it at that stack.
import { startRunbookStack, type RunbookStack } from './runbook-stack';
import { runTideline, type CliResult } from './cli-process';
import { buildDist, testKeyRing } from './worker-process';

export interface CliStack {
  /** The running stack (only inside tests and hooks that run after the suite's beforeAll). */
  readonly stack: RunbookStack;
  /** `--address … --task-queue …` for this stack. */
  readonly flags: string[];
  /** Runs `tideline ARGS… FLAGS…` to the end. */
  tideline(...args: string[]): Promise<CliResult>;
}

/** Registers the suite's beforeAll/afterAll; call it at the top of a describe block. */
export function useCliStack(timeScale = 0.05): CliStack {
  let running: RunbookStack | undefined;
  const started = (): RunbookStack => {
    if (running === undefined) throw new Error('the CLI stack is used before its beforeAll ran');
    return running;
  };
  const cli: CliStack = {
    get stack() {
      return started();
    },
    get flags() {
      const stack = started();
      return ['--address', stack.server.address, '--task-queue', stack.taskQueue];
    },
    tideline: (...args) => runTideline([...args, ...cli.flags]),
  };
  beforeAll(async () => {
    await buildDist();
    running = await startRunbookStack({ timeScale }, { keyRing: testKeyRing });
  }, 240_000);
  afterAll(async () => running?.close());
  return cli;
}

/** `run runbooks/provision-production-service.yaml` with its three inputs. */
export function provisionRunArgs(input: { projectId: string; name: string; vpcId: string }): string[] {
  return [
    'run',
    'runbooks/provision-production-service.yaml',
    '-i',
    `project_id=${input.projectId}`,
    '-i',
    `name=${input.name}`,
    '-i',
    `vpc_id=${input.vpcId}`,
  ];
}
