// The tools an agent calls, registered on an McpServer by profile (profiles.ts): here those about
// runbooks (list, describe, plan, start); those about runs already started are in run-tools.ts.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { SignedStart, StartFields } from '../contract/approval-messages';
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { McpToolError } from './errors';
import { planHash } from './plan-hash';
import { toolsOf, type McpProfile, type McpToolName } from './profiles';
import type { LoadedRunbook, RunbookLibrary } from './runbook-library';
import { bindAgentInputs, visibleInputs } from './runbook-inputs';
import { describe, descriptionText, summarise } from './runbook-summary';
import type { AgentRuns } from './runs';
import { RUN_REGISTRARS, type Registrar } from './run-tools';
import { annotations, answer, guarded, type ToolAnswer } from './tool-results';

/** The readable plan of a run, as `tideline plan` prints it (the CLI supplies it). */
export type PlanRenderer = (
  runbook: LoadedRunbook,
  plan: {
    values: Record<string, JsonValue>;
    missing: ReadonlySet<string>;
    given: ReadonlySet<string>;
    starter: string;
  },
) => Promise<string>;

export interface McpToolDeps {
  profile: McpProfile;
  library: RunbookLibrary;
  renderPlan: PlanRenderer;
  /** Values of secret inputs from the server's configuration, and where each comes from. */
  secrets: { values(definition: RunbookDefinition): Record<string, unknown>; sourceOf(name: string): string };
  /** The runs gateway, connected on first use. */
  runs(): Promise<AgentRuns>;
  /** The starter the agent's runs carry (agent-name.ts), known once the client said its name. */
  agent(): string;
  /** The start's signature with the server's configured key (claimed only without one). */
  signStart(fields: StartFields): SignedStart;
  /** A fresh run id for a runbook. */
  newRunId(runbook: string): string;
  /**
   * Runs the runbook on a throwaway local cloud seeded like the real one, with faults injected;
   * aborting `signal` ends the rehearsal early (MCP_REHEARSAL_CANCELLED).
   */
  rehearse(request: {
    runbook: LoadedRunbook;
    inputs: Record<string, unknown>;
    faults: Record<string, unknown>[];
    approvals: { step: string; decision: 'approve' | 'reject' }[];
    signal: AbortSignal;
  }): Promise<ToolAnswer>;
  /**
   * Aborted when the client has gone away while the session's calls may still be answered (stdio:
   * its input ended): long calls (rehearse) stop then, quick ones still get their answers out.
   */
  clientGone?: AbortSignal;
  /** A run's step timeline and audit trail, as `tideline history` and `audit` show them. */
  records: { history(runId: string): Promise<ToolAnswer>; audit(runId: string): Promise<ToolAnswer> };
}

const RUNBOOK = z.string().min(1).describe('the runbook name, as list_runbooks shows it');
const INPUTS = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    "the runbook's inputs (describe_runbook gives their JSON Schema); secret inputs are not accepted",
  );

interface Planned {
  runbook: LoadedRunbook;
  given: Record<string, unknown>;
  hash: string;
  text: string;
  structured: Record<string, unknown>;
}

async function planned(deps: McpToolDeps, name: string, args: Record<string, unknown>): Promise<Planned> {
  const runbook = deps.library.load(name);
  const { definition } = runbook;
  const bound = bindAgentInputs(definition, args, {
    values: deps.secrets.values(definition),
    sourceOf: (input) => deps.secrets.sourceOf(input),
  });
  const visible = visibleInputs(definition, bound.values);
  const hash = planHash(runbook.hash, visible);
  const text = await deps.renderPlan(runbook, {
    values: bound.values,
    missing: new Set(),
    given: new Set(Object.keys(bound.given)),
    starter: deps.agent(),
  });
  return {
    runbook,
    given: bound.given,
    hash,
    text: `plan hash: ${hash}\n\n${text}`,
    structured: { runbook: runbook.name, definitionHash: runbook.hash, planHash: hash, inputs: visible },
  };
}

const REGISTRARS: Record<McpToolName, Registrar> = {
  ...RUN_REGISTRARS,
  list_runbooks: (server, deps) =>
    server.registerTool(
      'list_runbooks',
      {
        description:
          'The runbooks this server offers, with their descriptions and the JSON Schema of their inputs.',
        annotations: annotations('list_runbooks'),
      },
      () =>
        guarded(async () => {
          const runbooks = deps.library.list().map(summarise);
          const lines = runbooks.map(
            (runbook) => `${runbook.name} (${runbook.file}): ${runbook.description}`,
          );
          return answer(lines.join('\n') || 'no runbooks are offered', { runbooks });
        }),
    ),
  describe_runbook: (server, deps) =>
    server.registerTool(
      'describe_runbook',
      {
        description:
          "A runbook's steps, the Cloud API actions it changes, its approval steps (who must approve) and its plan with no inputs, including the worker's policy rules when the server's configuration has them.",
        inputSchema: { runbook: RUNBOOK },
        annotations: annotations('describe_runbook'),
      },
      ({ runbook: name }) =>
        guarded(async () => {
          const runbook = deps.library.load(name);
          const description = describe(runbook);
          const declared = Object.entries(runbook.definition.inputs);
          const missing = new Set(
            declared.filter(([, spec]) => spec.required && spec.default === undefined).map(([name]) => name),
          );
          const plan = await deps.renderPlan(runbook, {
            values: Object.fromEntries(
              declared
                .filter(([name]) => !missing.has(name))
                .map(([name, spec]) => [name, spec.default ?? null]),
            ),
            missing,
            given: new Set(),
            starter: deps.agent(),
          });
          return answer(`${descriptionText(description)}\n\n${plan}`, { ...description });
        }),
    ),
  plan: (server, deps) =>
    server.registerTool(
      'plan',
      {
        description:
          'Resolves the inputs and shows what a run would do (steps, API requests, policy rules) without doing it, with a plan hash that `start` requires.',
        inputSchema: { runbook: RUNBOOK, inputs: INPUTS },
        annotations: annotations('plan'),
      },
      ({ runbook, inputs }) =>
        guarded(async () => {
          const plan = await planned(deps, runbook, inputs ?? {});
          return answer(plan.text, plan.structured);
        }),
    ),
  rehearse: (server, deps) =>
    server.registerTool(
      'rehearse',
      {
        description:
          'Runs the runbook with these inputs on a throwaway local cloud (a faithful copy of the Cloud API, started for this call) that starts with the resources the inputs name, copied by name and shape from the real cloud, never secrets; optional faults are injected as a runbook test declares them. Nothing real changes. Answers how the run ended, the API requests it made, what compensation undid, and the failure.',
        inputSchema: {
          runbook: RUNBOOK,
          inputs: INPUTS,
          faults: z
            .array(z.record(z.string(), z.unknown()))
            .max(20)
            .optional()
            .describe(
              'faults of the local cloud, as a runbook test declares them, e.g. {"operation": "service.enablePooler", "kind": "rateLimit", "retryAfterSeconds": 0}: operation (or "*"), kind (error, rateLimit, latency, applyThenFail, outcome, metricAnomaly, omitField), nth (the first call it hits), times, status, message; omitField takes field, the answer\'s field to leave out (e.g. "resources.0.spec.cpu_millis")',
            ),
          approvals: z
            .array(
              z.strictObject({
                step: z.string().min(1).describe("the approval step's id (or key)"),
                decision: z.enum(['approve', 'reject']),
              }),
            )
            .max(20)
            .optional()
            .describe(
              'how the rehearsal answers the runbook\'s approval steps, e.g. [{"step": "gate", "decision": "reject"}]: a stand-in answers them on the throwaway stack (on a step with approvers, as many stand-in approvers as it needs), nothing real is approved; an approval left out waits until the rehearsal times out',
            ),
        },
        annotations: annotations('rehearse'),
      },
      ({ runbook, inputs, faults, approvals }, { signal }) =>
        guarded(async () => {
          const plan = await planned(deps, runbook, inputs ?? {});
          const outcome = await deps.rehearse({
            runbook: plan.runbook,
            inputs: plan.given,
            faults: faults ?? [],
            approvals: approvals ?? [],
            // The call's own (cancelled by the client, or its session closed) or the client gone.
            signal: deps.clientGone === undefined ? signal : AbortSignal.any([signal, deps.clientGone]),
          });
          return answer(outcome.text, { ...outcome.structured, planHash: plan.hash });
        }),
    ),
  start: (server, deps) =>
    server.registerTool(
      'start',
      {
        description:
          "Starts a runbook run with the plan hash `plan` returned; a changed runbook or changed inputs refuse the start and return the new plan. The run's starter is this agent; approvals it meets wait for a person.",
        inputSchema: {
          runbook: RUNBOOK,
          inputs: INPUTS,
          planHash: z.string().min(1).describe('the plan hash `plan` returned for these inputs'),
        },
        annotations: annotations('start'),
      },
      ({ runbook, inputs, planHash: expected }) =>
        guarded(async () => {
          const plan = await planned(deps, runbook, inputs ?? {});
          if (plan.hash !== expected) {
            throw new McpToolError(
              'MCP_PLAN_CHANGED',
              'the plan changed since that hash was made (the runbook or the inputs differ); nothing was started',
              `read the new plan, then start with its hash:\n\n${plan.text}`,
              { planHash: plan.hash },
            );
          }
          const agent = deps.agent();
          const runId = deps.newRunId(plan.runbook.name);
          await (
            await deps.runs()
          ).start({ definition: plan.runbook.definition, inputs: plan.given }, runId, agent, deps.signStart);
          return answer(
            `started ${plan.runbook.name} as run ${runId} (starter ${agent}); follow it with the status tool.\n` +
              'A step that needs approval waits for a person: status and list_waiting_approvals then say who must approve and the `tideline approve` command they run (an agent cannot approve).',
            { runId, runbook: plan.runbook.name, startedBy: agent, planHash: plan.hash },
          );
        }),
    ),
};

/** Registers the tools of the profile. */
export function registerTools(server: McpServer, deps: McpToolDeps): McpToolName[] {
  const names = toolsOf(deps.profile);
  for (const name of names) REGISTRARS[name](server, deps);
  return names;
}
