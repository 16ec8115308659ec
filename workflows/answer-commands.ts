// The exact commands that answer what a run waits for, as the Web UI's current details and the
// run's notifications show them. Workflow code: the run's id and namespace from workflowInfo().
import { workflowInfo } from '@temporalio/workflow';
import type { AnswerCommands } from '../contract/notification-messages';

/** `--namespace NS` when the run is not in the CLI's default namespace. */
function namespaceFlag(): string {
  const namespace = workflowInfo().namespace;
  return namespace === 'default' ? '' : ` --namespace ${namespace}`;
}

/** How an operator approves or rejects the approval at `stepKey`. */
export function approvalCommands(stepKey: string): Required<Pick<AnswerCommands, 'approve' | 'reject'>> {
  const id = workflowInfo().workflowId;
  const ns = namespaceFlag();
  return {
    approve: `tideline approve ${id} --step ${stepKey}${ns}`,
    reject: `tideline reject ${id} --step ${stepKey} -m "why"${ns}`,
  };
}

/** How an operator retries, skips or rolls back the step held at `stepKey`. */
export function holdCommands(stepKey: string): Required<Pick<AnswerCommands, 'retry' | 'skip' | 'rollback'>> {
  const id = workflowInfo().workflowId;
  const ns = namespaceFlag();
  return {
    retry: `tideline retry ${id} --step ${stepKey}${ns}`,
    skip: `tideline skip ${id} --step ${stepKey} --output '{}'${ns}`,
    rollback: `tideline rollback ${id}${ns}`,
  };
}
