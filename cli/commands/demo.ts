/* eslint-disable @typescript-eslint/no-require-imports -- heavy modules load on use, so --help stays fast */
// `tideline demo`: the whole product in one command. Starts the dev stack on free ports, creates
// a VPC in the local cloud, runs runbooks/provision-production-service.yaml with live progress,
// prints the outputs (secrets masked), what the local cloud now holds and where the run is in the
// Web UI, then stops everything. Exit 0 when the run succeeded, 1 otherwise.
import path from 'node:path';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { styleFor } from '../output/style';
import { bindRunInputs, loadRunbook } from '../runbook-input';
import { DIALECT_FLAG_HELP, dialectFlag, numberFlag, stackFailure } from '../dev-stack-flags';
import { clientFlags, stackInfo } from '../../stack/stack-info';
import { waitForStopSignal, type StopSignal } from '../stop-signal';
import { packageRoot } from '../../stack/temporal-binary';
import { newRunId } from './run';
import type { DevStack } from '../../stack/dev-stack';
import { SHARED_DEFAULTS } from '../../worker/shared-settings';

// Loaded on use: they pull in Temporal's SDK, which `--help` must not wait for.
const loadFollow = () => require('../follow') as typeof import('../follow');
const loadDemoSession = () => require('../demo-session') as typeof import('../demo-session');
const loadDevStack = () => require('../../stack/dev-stack') as typeof import('../../stack/dev-stack');
const loadRunObserver = () => require('../run-observer') as typeof import('../run-observer');

const RUNBOOK = path.join('runbooks', 'provision-production-service.yaml');
const SERVICE_NAME = /^[a-z][a-z0-9-]{2,62}$/;

export const DEMO_SPEC = {
  name: 'demo',
  usage: '[--name SERVICE] [--time-scale X] [--dialect current|seed] [--keep-running] [--show-secrets]',
  description: [
    'Starts a Temporal dev server (with its Web UI), the local cloud and a worker on free 127.0.0.1 ports, creates a VPC in the local cloud, and runs runbooks/provision-production-service.yaml with live progress: create the service, wait until READY, attach it to the VPC, enable the pooler, tag it PROD.',
    "Then it prints the outputs (secret ones masked), the service as the local cloud shows it, and the run's Web UI address, and stops everything. With --keep-running the stack stays up (Web UI included) until Ctrl-C. Exit 0 when the run succeeded, 1 when it failed.",
  ],
  options: {
    name: { type: 'string' },
    'time-scale': { type: 'string' },
    dialect: { type: 'string' },
    'keep-running': { type: 'boolean' },
    'show-secrets': { type: 'boolean' },
  },
  optionHelp: [
    ['--name SERVICE', 'the service to create (default "orders")'],
    ['--time-scale X', "the local cloud's pace (0.1 = ten times faster; default 1: realistic, ~15 s in all)"],
    [...DIALECT_FLAG_HELP],
    ['--keep-running', 'keep the stack (and the Web UI) up after the run, until Ctrl-C'],
    ['--show-secrets', "print the service's initial password instead of ••••••"],
  ],
  examples: [
    'npm run demo',
    'tideline demo',
    'tideline demo --keep-running     # then open the printed Web UI link',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

async function runDemo(
  stack: DevStack,
  baseCtx: Parameters<Command>[1],
  options: { name: string; showSecrets: boolean; keepRunning: boolean; stop: StopSignal },
): Promise<number> {
  const ctx = loadDemoSession().stackContext(baseCtx, stack);
  const style = styleFor(ctx);
  const say = (text: string): void => {
    if (!ctx.globals.json) ctx.stdout.write(`${text}\n`);
  };
  const info = stackInfo(stack);
  say(
    `${style.bold('tideline demo')}: a local Temporal (${info.temporal.address}), its Web UI (${info.temporal.webUiUrl}), the local cloud (${info.cloud.url}) and a worker are up.`,
  );

  const project = loadDemoSession().demoProject(stack);
  try {
    const vpc = await project.api.vpc.create({
      project_id: project.projectId,
      name: 'demo-vpc',
      cidr: '10.0.0.0/16',
      region_code: 'us-east-1',
    });
    say(`created VPC ${vpc.id ?? '?'} (10.0.0.0/16) in project ${project.projectId} of the local cloud`);

    const runbook = loadRunbook(path.join(packageRoot(), RUNBOOK), ctx);
    const inputs = bindRunInputs(runbook, {
      project_id: project.projectId,
      name: options.name,
      vpc_id: vpc.id ?? '',
    });
    const session = loadDemoSession().stackSession(stack);
    try {
      const workflowId = newRunId(runbook.definition.name);
      const input: RunbookWorkflowInput = { definition: runbook.definition, inputs };
      const handle = await session.client.workflow.start(loadRunObserver().RUNBOOK_WORKFLOW_TYPE, {
        taskQueue: stack.taskQueue,
        workflowId,
        args: [input],
        memo: { runbook: runbook.definition.name },
      });
      say(`running ${RUNBOOK} as run ${workflowId} (name=${options.name}, vpc_id=${vpc.id ?? '?'}):\n`);
      const code = await loadFollow().followRun(ctx, session, handle, { showSecrets: options.showSecrets });
      const interrupted = options.stop.signalled() !== undefined;
      const workflowUrl = `${info.temporal.webUiUrl}/namespaces/${info.temporal.namespace}/workflows/${encodeURIComponent(workflowId)}`;
      const services = await project.api.service.list({ project_id: project.projectId });
      const made = services.find((service) => service.name === options.name);
      if (ctx.globals.json) {
        ctx.stdout.write(
          `${JSON.stringify({ demo: { workflowId, webUiUrl: info.temporal.webUiUrl, workflowUrl, serviceId: made?.service_id ?? null, kept: options.keepRunning } })}\n`,
        );
      } else {
        if (made?.service_id)
          say(
            [
              '\nthe local cloud now holds:',
              ...(await loadDemoSession().serviceSummary(project, made.service_id)),
            ].join('\n'),
          );
        say(`\nthe run in the Web UI: ${workflowUrl}`);
        say(
          style.dim(
            '  each step is an activity in its history; payloads are encrypted with your tideline key',
          ),
        );
        if (options.keepRunning) {
          say(style.dim(`  read them decrypted: tideline history ${workflowId} ${clientFlags(info)}`));
        } else {
          say(
            style.dim(
              '  the link works while the stack runs: `tideline demo --keep-running` keeps it up, so does `tideline dev`',
            ),
          );
        }
      }
      if (interrupted) return EXIT.FAILED;
      return code;
    } finally {
      await session.close().catch(() => undefined);
    }
  } finally {
    await project.api.close();
  }
}

export const demoCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(DEMO_SPEC, argv, ctx);
  const { values } = parsed;
  const name = values.name ?? 'orders';
  if (!SERVICE_NAME.test(name)) {
    throw new CliError(
      'CLI_USAGE',
      `--name "${name}" is not a valid service name`,
      'lowercase letters, digits and hyphens, 3–63 characters, starting with a letter',
    );
  }
  const timeScale = numberFlag('time-scale', values['time-scale'], 0.001, 1000);
  const dialect = dialectFlag(values.dialect);
  const log = (line: string): void => {
    ctx.stderr.write(`${line}\n`);
  };
  const stop = waitForStopSignal(ctx);
  let stack: DevStack | undefined;
  try {
    log(
      'tideline demo: starting a Temporal dev server, the local cloud and a worker (free ports on 127.0.0.1)…',
    );
    const starting = loadDevStack()
      .startDevStack({
        env: ctx.env,
        namespace: SHARED_DEFAULTS.namespace,
        taskQueue: ctx.globals.taskQueue ?? SHARED_DEFAULTS.taskQueue,
        preferUsualPorts: false,
        timeScale,
        dialect,
        workerLogLevel: 'ERROR',
        log,
      })
      .catch((error: unknown) => {
        throw stackFailure(error);
      });
    const first = await Promise.race([starting, stop.received]);
    if (typeof first === 'string') {
      await (await starting.catch(() => undefined))?.close();
      log(`tideline demo: ${first} received while starting; stopped`);
      return EXIT.FAILED;
    }
    stack = first;
    const code = await runDemo(stack, ctx, {
      name,
      showSecrets: values['show-secrets'] === true,
      keepRunning: values['keep-running'] === true,
      stop,
    });
    if (values['keep-running'] === true && code === EXIT.OK) {
      ctx.stderr.write(`\nthe stack keeps running (Web UI ${stack.temporal.webUiUrl}); Ctrl-C stops it.\n`);
      log(`tideline demo: ${await stop.received} received; stopping`);
    } else if (!ctx.globals.json) {
      ctx.stdout.write(
        styleFor(ctx).dim(
          '\nstopping the demo stack (`tideline demo --keep-running` or `tideline dev` keep one up)\n',
        ),
      );
    }
    return code;
  } finally {
    await stack?.close();
    stop.dispose();
  }
};
