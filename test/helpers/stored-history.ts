// A workflow's history and description as the Temporal server stores them, read without the
// codec, for tests that secrets are not there in readable form.
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

export interface StoredHistory {
  history: temporal.api.history.v1.IHistory;
  /** The history, encoded as the server hands it out. */
  raw: Buffer;
  /** The encoded answer of DescribeWorkflowExecution (memo, search attributes, pending activities). */
  rawDescription: Buffer;
}

export async function readStoredHistory(
  connection: Connection,
  workflowId: string,
  namespace = 'default',
): Promise<StoredHistory> {
  const { history } = await connection.workflowService.getWorkflowExecutionHistory({
    namespace,
    execution: { workflowId },
  });
  const raw = Buffer.from(temporal.api.history.v1.History.encode(history ?? {}).finish());
  const described = await connection.workflowService.describeWorkflowExecution({
    namespace,
    execution: { workflowId },
  });
  const rawDescription = Buffer.from(
    temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse.encode(described).finish(),
  );
  return { history: history ?? {}, raw, rawDescription };
}

/** Asserts that no secret, as is or base64-encoded, is in the raw history or the raw description. */
export function expectSecretsNotStored(stored: StoredHistory, secrets: readonly string[]): void {
  for (const secret of secrets) {
    for (const form of [secret, Buffer.from(secret).toString('base64')]) {
      expect(stored.raw.includes(Buffer.from(form))).toBe(false);
      expect(stored.rawDescription.includes(Buffer.from(form))).toBe(false);
    }
  }
}
