// What `list_runbooks` and `describe_runbook` tell an agent about a runbook besides its plan: its
// inputs (as a JSON Schema; secret ones by name only), each step with the Cloud API action it
// calls, which of those change something, and the approval steps with who must approve.
import type { StepDefinition } from '../dsl/definition';
import { stepTree } from '../dsl/step-tree';
import type { LoadedRunbook } from './runbook-library';
import { runbookInputsSchema, secretInputs } from './runbook-inputs';

export interface StepSummary {
  id: string;
  kind: string;
  name?: string;
  /** Call steps: the Cloud API action and whether it reads, creates, changes or deletes. */
  action?: string;
  actionKind?: string;
  /** Set for steps that only undo another one (compensation). */
  undoes?: string;
}

export interface ApprovalSummary {
  step: string;
  /** Names and `group:NAME`; absent: anyone may decide, unsigned. */
  approvers?: string[];
  minApprovals?: number;
  allowSelfApproval?: boolean;
  /** When nobody answers in time. */
  default: 'approve' | 'reject';
}

export interface RunbookSummary {
  name: string;
  description: string;
  file: string;
  definitionHash: string;
  inputsSchema: Record<string, unknown>;
  /** Inputs the server takes from its own configuration, never from a tool argument. */
  secretInputs: string[];
}

export interface RunbookDescription extends RunbookSummary {
  steps: StepSummary[];
  /** The actions that change the cloud (create, change, delete), compensation included. */
  changes: string[];
  approvals: ApprovalSummary[];
}

export function summarise(runbook: LoadedRunbook): RunbookSummary {
  const { definition } = runbook;
  return {
    name: runbook.name,
    description: definition.description.trim(),
    file: runbook.file,
    definitionHash: runbook.hash,
    inputsSchema: runbookInputsSchema(definition),
    secretInputs: secretInputs(definition),
  };
}

export function describe(runbook: LoadedRunbook): RunbookDescription {
  const placed = stepTree(runbook.definition.steps, { branches: true, foreach: true, compensate: true });
  const undoing = new Map<StepDefinition, string>();
  for (const { step } of placed) for (const undo of step.compensate) undoing.set(undo, step.id);
  const steps = placed.map(({ step, kind, parent }): StepSummary => {
    // A step nested in a compensation step undoes what that one undoes.
    const undoes = undoing.get(step) ?? (parent !== undefined ? undoing.get(parent) : undefined);
    return {
      id: step.id,
      kind,
      ...(step.name !== undefined && { name: step.name }),
      ...(step.kind === 'call' && { action: step.action, actionKind: step.actionKind }),
      ...(undoes !== undefined && { undoes }),
    };
  });
  const changes = [
    ...new Set(
      placed.flatMap(({ step }) => (step.kind === 'call' && step.actionKind !== 'read' ? [step.action] : [])),
    ),
  ];
  const approvals = placed.flatMap(({ step }): ApprovalSummary[] =>
    step.kind === 'approve'
      ? [
          {
            step: step.id,
            default: step.default,
            ...(step.approvers !== undefined && { approvers: step.approvers }),
            ...(step.minApprovals !== undefined && { minApprovals: step.minApprovals }),
            ...(step.allowSelfApproval !== undefined && { allowSelfApproval: step.allowSelfApproval }),
          },
        ]
      : [],
  );
  return { ...summarise(runbook), steps, changes, approvals };
}

/** The description as lines of text, for clients that show only a tool's text. */
export function descriptionText(description: RunbookDescription): string {
  const lines = [
    `${description.name} (${description.file}, definition ${description.definitionHash.slice(0, 12)}…)`,
  ];
  if (description.description !== '') lines.push(description.description);
  lines.push('', 'steps:');
  for (const step of description.steps) {
    const action = step.action !== undefined ? ` ${step.action} (${step.actionKind})` : '';
    const undo = step.undoes !== undefined ? ` — undoes ${step.undoes}` : '';
    lines.push(
      `  ${step.id}: ${step.kind}${action}${step.name !== undefined ? ` — ${step.name}` : ''}${undo}`,
    );
  }
  lines.push('', `changes: ${description.changes.join(', ') || 'nothing (reads only)'}`);
  if (description.approvals.length === 0) lines.push('approvals: none');
  for (const approval of description.approvals) {
    const who =
      approval.approvers === undefined
        ? 'anyone (unsigned)'
        : `${approval.minApprovals ?? 1} of ${approval.approvers.join(', ')}${approval.allowSelfApproval === false ? ', not the starter' : ''}`;
    lines.push(`approval at ${approval.step}: ${who}; a person approves with \`tideline approve RUN_ID\``);
  }
  if (description.secretInputs.length > 0)
    lines.push(`secret inputs (from the server's configuration): ${description.secretInputs.join(', ')}`);
  return lines.join('\n');
}
