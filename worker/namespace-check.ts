// Before a worker polls, its namespace must exist: otherwise the SDK only fails deep inside worker
// creation (after bundling the workflows), with a gRPC dump, and can leave the process hanging.
// One describe call up front turns that into a one-line reason with the fix.
import type { NativeConnection } from '@temporalio/worker';
import { WorkerError } from './errors';

/** gRPC status NOT_FOUND (the SDK's ServiceError carries the numeric gRPC code). */
const GRPC_NOT_FOUND = 5;

function grpcCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Throws TIDELINE_NAMESPACE_NOT_FOUND (with how to create it) when `namespace` does not exist. */
export async function ensureNamespaceExists(
  connection: Pick<NativeConnection, 'workflowService'>,
  namespace: string,
  address: string,
): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if (grpcCode(error) !== GRPC_NOT_FOUND) throw error;
    throw new WorkerError(
      'TIDELINE_NAMESPACE_NOT_FOUND',
      `namespace "${namespace}" does not exist on Temporal at ${address}; create it ` +
        `(temporal operator namespace create --namespace ${namespace}) or set TEMPORAL_NAMESPACE ` +
        `to an existing namespace`,
      { cause: error },
    );
  }
}
