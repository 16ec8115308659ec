// The prompt that walks an agent through a change the way tideline expects it made: read the
// runbook, plan it, rehearse it on a throwaway local cloud, start it with the plan hash, and watch
// it to the end — leaving approvals to people. Only the tools the server's profile offers are named.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { McpToolName } from './profiles';
import { runbookUri } from './runbook-resources';

export const AGENT_PROMPT_NAME = 'change_with_runbook';

/** The steps of the walk, each with the tool it needs (none: always shown). */
const STEPS: readonly { tool?: McpToolName; text: (runbook: string) => string }[] = [
  {
    tool: 'describe_runbook',
    text: (runbook) =>
      `Read what ${runbook} does: call describe_runbook (or read the resource ${runbookUri(runbook)}). Note the inputs it needs, the Cloud API actions that change something and the approval steps.`,
  },
  {
    tool: 'plan',
    text: () =>
      'Call plan with the inputs. Read the plan: every step, every API request and the policy rules. Keep its plan hash. Show the plan to the user before anything changes.',
  },
  {
    tool: 'rehearse',
    text: () =>
      'Call rehearse with the same inputs, once as planned and once with a fault injected on a step that changes something (for example every service.enablePooler call rate-limited: {"operation": "service.enablePooler", "kind": "rateLimit", "retryAfterSeconds": 0}). Check that the run succeeds, and that with the fault it fails and its completed steps are undone. Rehearsal changes only a throwaway local cloud.',
  },
  {
    tool: 'start',
    text: () =>
      'When the user agrees, call start with the same inputs and the plan hash. If start answers MCP_PLAN_CHANGED, the runbook or its inputs changed: read the new plan, show it, and start only with its hash.',
  },
  {
    tool: 'status',
    text: () =>
      'Watch the run with status until it ends. If it waits for approval, tell the user who must approve and the `tideline approve` command they run. You never approve: there is no tool for it and the worker refuses any approval by an agent.',
  },
  {
    tool: 'history',
    text: () =>
      'When it has ended, show its step timeline (history) and who started and approved it (audit).',
  },
];

/** The walk's text for `runbook`, with the steps `tools` allow. */
export function agentPromptText(
  runbook: string,
  goal: string | undefined,
  tools: readonly McpToolName[],
): string {
  const offered = new Set(tools);
  const steps = STEPS.filter((step) => step.tool === undefined || offered.has(step.tool));
  const lines = [
    `Make this change with the tideline runbook ${runbook}${goal !== undefined && goal !== '' ? `: ${goal}` : '.'}`,
    'Use only the tideline tools, never raw Cloud API calls. Follow these steps in order:',
    ...steps.map((step, index) => `${index + 1}. ${step.text(runbook)}`),
  ];
  if (!offered.has('start'))
    lines.push('This server is read-only: a person starts the run (`tideline run`) once the plan is agreed.');
  return lines.join('\n');
}

export function registerAgentPrompt(server: McpServer, tools: readonly McpToolName[]): void {
  server.registerPrompt(
    AGENT_PROMPT_NAME,
    {
      title: 'Change with a runbook: plan, rehearse, start, watch',
      description:
        'Walks through a change made with a runbook: describe, plan, rehearse, start with the plan hash, watch; people approve.',
      argsSchema: {
        runbook: z.string().min(1).describe('the runbook to use, as list_runbooks shows it'),
        goal: z.string().optional().describe('what the change is for, in a sentence'),
      },
    },
    ({ runbook, goal }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: agentPromptText(runbook, goal, tools) } }],
    }),
  );
}
