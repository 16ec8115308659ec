// `tideline mcp`: runbooks as tools for AI agents. Wires the mcp/ room's server to what the CLI
// already has: the Temporal session (cli/temporal.ts), the plan `tideline plan` prints, secret
// inputs from TIDELINE_INPUT_<NAME>, and the approval key that signs the agent's starts.
/* eslint-disable @typescript-eslint/no-require-imports -- the SDKs load only when the command runs */
import path from 'node:path';
import { choiceOption, commandWordIndex, parseCommand, type CommandSpec } from '../args';
import { signStart } from '../../activities/approval-signatures';
import { loadApprovalKey } from '../approval-signing';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { environmentInputs, inputVariable } from '../input-sources';
import { renderPlanText } from '../output/plan-text';
import { PLAIN_STYLE } from '../output/style';
import { composePlan } from '../plan/compose-plan';
import { waitForStopSignal } from '../stop-signal';
import { openTemporal, type TemporalSession } from '../temporal';
import { cliVersion } from '../main';
import { workerCatalogue } from './catalog';
import { newRunId } from './run';
import { codecToken } from '../../stack/codec-token';
import { agentNameProblem } from '../../mcp/agent-name';
import { allowedHostProblem, allowedOriginProblem } from '../../mcp/http-origin';
import { McpToolError } from '../../mcp/errors';
import { MCP_PROFILES } from '../../mcp/profiles';
import type { RunbookLibrary } from '../../mcp/runbook-library';
import type { McpServerSettings } from '../../mcp/server';
import type { PlanRenderer } from '../../mcp/tools';

export const MCP_SPEC = {
  name: 'mcp',
  usage:
    '[--profile read-only|operate] [--runbooks DIR] [--agent-name mcp:NAME] [--key FILE] [--http PORT [--allow-host NAME]… [--allow-origin ORIGIN]…]',
  description: [
    'Serves runbooks as tools to an AI agent over the Model Context Protocol: on stdin/stdout (the',
    'client starts `tideline mcp` itself), or with --http PORT as Streamable HTTP on 127.0.0.1, where',
    'every request needs `Authorization: Bearer TOKEN` (TIDELINE_MCP_TOKEN, or one generated and printed)',
    'and a Host of its own (127.0.0.1:PORT, localhost:PORT, --allow-host), and an Origin, if any, of',
    'its own or of --allow-origin: a web page cannot reach it by DNS rebinding (HTTP 403).',
    'A rehearsal still running when its client goes away (stdin closed, session deleted) is cancelled.',
    'Tools: list_runbooks, describe_runbook, plan, rehearse (on a throwaway local cloud), status, list_waiting_approvals,',
    'history, audit; the operate profile adds',
    'start (with the plan hash `plan` returned) and cancel (runs this agent started). There is no approve',
    'tool, and the worker refuses any approval by an `mcp:` name: people approve with `tideline approve`.',
    "The runbooks are those of --runbooks DIR, else the worker configuration's catalog (--config).",
    "Runs are started as `mcp:<client name>` (or --agent-name), signed with --key (or the name's key in",
    '~/.tideline/approval-keys). Secret inputs are never tool arguments: they come from TIDELINE_INPUT_<NAME>.',
    '`tideline mcp install CLIENT` adds the server to Claude Code, Cursor or VS Code (see its --help).',
  ],
  options: {
    profile: { type: 'string' },
    runbooks: { type: 'string' },
    'agent-name': { type: 'string' },
    key: { type: 'string' },
    http: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    'allow-origin': { type: 'string', multiple: true },
  },
  optionHelp: [
    [
      '--profile PROFILE',
      'read-only (default: list, describe, plan, rehearse, status, history, audit) or operate (adds start, cancel)',
    ],
    ['--runbooks DIR', "the runbooks offered (default: the worker configuration's catalog)"],
    ['--agent-name mcp:NAME', "the runs' starter (default: mcp: and the client's name)"],
    ['--key FILE', "the private key that signs the agent's starts (register its public key for the name)"],
    ['--http PORT', 'serve Streamable HTTP on 127.0.0.1:PORT instead of stdio (bearer token required)'],
    ['--allow-host NAME', 'with --http: a Host name answered besides 127.0.0.1 and localhost (repeatable)'],
    [
      '--allow-origin ORIGIN',
      'with --http: a browser origin answered besides its own, e.g. http://localhost:6274 (repeatable)',
    ],
  ],
  examples: [
    'tideline mcp --runbooks runbooks/',
    'tideline mcp --config worker.yaml --profile operate --agent-name mcp:claude --key ~/.tideline/agent.pem',
    'TIDELINE_MCP_TOKEN=… tideline mcp --runbooks runbooks/ --http 8808',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

function library(ctx: CliContext, folder: string | undefined): RunbookLibrary {
  const { RunbookLibrary } =
    require('../../mcp/runbook-library') as typeof import('../../mcp/runbook-library');
  if (folder !== undefined) {
    const offered = RunbookLibrary.ofFolder(path.resolve(ctx.cwd, folder));
    for (const problem of offered.problems) ctx.stderr.write(`tideline mcp: not offered: ${problem}\n`);
    return offered;
  }
  const catalogue = workerCatalogue(ctx);
  const { resolveConfigFile } =
    require('../../worker/shared-settings') as typeof import('../../worker/shared-settings');
  const configFile = resolveConfigFile(ctx.env, ctx.globals.config, ctx.cwd);
  if (catalogue === undefined || catalogue.list.length === 0 || configFile === undefined) {
    throw new CliError(
      'CLI_USAGE',
      'no runbooks to offer: give --runbooks DIR, or a worker configuration (--config) whose catalog: lists them',
    );
  }
  return RunbookLibrary.ofCatalogue(catalogue.list, path.dirname(configFile));
}

function planRenderer(ctx: CliContext): PlanRenderer {
  return async (runbook, plan) => {
    const built = await composePlan(ctx, {
      definition: runbook.definition,
      file: runbook.file,
      bound: plan.values,
      missing: plan.missing,
      given: plan.given,
      resolveTargets: false,
      withPolicies: true,
      starterName: plan.starter,
    });
    return renderPlanText(built, PLAIN_STYLE);
  };
}

export const mcpCommand: Command = async (argv, ctx) => {
  const word = commandWordIndex(argv, { endAtDoubleDash: true });
  if (word !== -1 && argv[word] === 'install') {
    const { mcpInstallCommand } = require('./mcp-install') as typeof import('./mcp-install');
    return mcpInstallCommand([...argv.slice(0, word), ...argv.slice(word + 1)], ctx);
  }
  const { values } = parseCommand(MCP_SPEC, argv, ctx);
  const profile = choiceOption('profile', values.profile, MCP_PROFILES, 'read-only');
  const configuredName = values['agent-name'];
  const nameProblem = configuredName === undefined ? undefined : agentNameProblem(configuredName);
  if (nameProblem !== undefined) throw new CliError('CLI_USAGE', `--agent-name ${nameProblem}`);
  const port = values.http === undefined ? undefined : Number(values.http);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535))
    throw new CliError('CLI_USAGE', '--http must be a port number (0 to 65535)');
  const allowHosts = values['allow-host'] ?? [];
  const allowOrigins = values['allow-origin'] ?? [];
  if (port === undefined && allowHosts.length + allowOrigins.length > 0)
    throw new CliError('CLI_USAGE', '--allow-host and --allow-origin apply to --http PORT only');
  for (const [flag, given, problem] of [
    ['--allow-host', allowHosts, allowedHostProblem],
    ['--allow-origin', allowOrigins, allowedOriginProblem],
  ] as const) {
    const found = given.map(problem).find((text) => text !== undefined);
    if (found !== undefined) throw new CliError('CLI_USAGE', `${flag}: ${found}`);
  }
  // The key file given, else the configured name's own key (~/.tideline/approval-keys), else none:
  // the starts are then claimed, not signed.
  const key =
    configuredName !== undefined || values.key !== undefined
      ? loadApprovalKey(ctx, configuredName ?? '', values.key)
      : undefined;
  let session: Promise<TemporalSession> | undefined;
  /** The Temporal session, opened at first use; a failure leaves the next call to try again. */
  const temporal = async (): Promise<TemporalSession> => {
    session ??= openTemporal(ctx);
    try {
      return await session;
    } catch (error) {
      session = undefined;
      throw new McpToolError('MCP_TEMPORAL_FAILED', error instanceof Error ? error.message : String(error));
    }
  };
  /** The session's rehearsals, on one stack started at the first (closed when the session ends). */
  let rehearser: ReturnType<typeof import('./mcp-rehearse').mcpRehearser> | undefined;
  const { AgentRuns } = require('../../mcp/runs') as typeof import('../../mcp/runs');
  const { mcpRunRecords } = require('./mcp-run-records') as typeof import('./mcp-run-records');
  const settings: McpServerSettings = {
    profile,
    library: library(ctx, values.runbooks),
    renderPlan: planRenderer(ctx),
    secrets: {
      values: (definition) => environmentInputs(definition, ctx.env),
      sourceOf: (name) => `the environment variable ${inputVariable(name)}`,
    },
    runs: async () => {
      const connected = await temporal();
      return new AgentRuns(connected.client, connected.target.taskQueue);
    },
    records: mcpRunRecords(temporal),
    rehearse: (request) => {
      const { mcpRehearser } = require('./mcp-rehearse') as typeof import('./mcp-rehearse');
      rehearser ??= mcpRehearser(ctx);
      return rehearser.rehearse(request);
    },
    signStart: (fields) => signStart(key, fields),
    newRunId,
    ...(configuredName !== undefined && { agentName: configuredName }),
    version: cliVersion(),
  };
  const server = require('../../mcp/server') as typeof import('../../mcp/server');
  const stop = waitForStopSignal(ctx);
  try {
    if (port === undefined) {
      await Promise.race([
        server.serveStdio(settings, { input: process.stdin, output: ctx.stdout }),
        stop.received,
      ]);
    } else {
      const { token, source } = codecToken(ctx.env.TIDELINE_MCP_TOKEN, 'TIDELINE_MCP_TOKEN');
      const http = await server
        .serveHttp(settings, { port, token, allowHosts, allowOrigins })
        .catch((error: unknown) => {
          throw new CliError('CLI_USAGE', `cannot listen on 127.0.0.1:${port}: ${(error as Error).message}`);
        });
      ctx.stdout.write(
        `tideline mcp: ${http.url} (profile ${profile}); ${source === 'generated' ? `token (shown once): ${token}` : 'token from TIDELINE_MCP_TOKEN'}\n`,
      );
      await stop.received;
      await http.close();
    }
  } finally {
    stop.dispose();
    await rehearser?.close();
    if (session !== undefined) await (await session.catch(() => undefined))?.close().catch(() => undefined);
  }
  return EXIT.OK;
};
