// The cluster's namespace and tideline's search attributes (TIDELINE_SEARCH_ATTRIBUTES), through the
// server's own APIs. A real server creates no namespace, and each service refreshes its namespace
// cache about every 10 s: `up` returns only once a visibility query by a tideline search attribute
// succeeds in the namespace, which is when workers and `tideline run` can use it. It connects as
// any client of the cluster does (cluster/tls.ts: with mTLS, with the client certificate).
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { connectClient, type TemporalSettings } from '../worker/connection';
import {
  GRPC_ALREADY_EXISTS,
  GRPC_NOT_FOUND,
  grpcCode,
  registerSearchAttributes,
} from '../worker/namespace-check';
import { StackError } from '../stack/stack-error';

const RETENTION = '7 days';

async function ensureRegistered(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return;
  } catch (error) {
    if (grpcCode(error) !== GRPC_NOT_FOUND) throw error;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      description: 'tideline runbooks',
      workflowExecutionRetentionPeriod: msToTs(RETENTION),
    });
  } catch (error) {
    if (grpcCode(error) !== GRPC_ALREADY_EXISTS) throw error; // a concurrent `up` registered it
  }
}

/** True once a visibility query by a tideline search attribute works in the namespace. */
async function usable(connection: Connection, namespace: string): Promise<boolean> {
  const attribute = TIDELINE_SEARCH_ATTRIBUTES[0].name;
  try {
    await connection.workflowService.listWorkflowExecutions({
      namespace,
      pageSize: 1,
      query: `${attribute} = 'tideline-cluster-probe'`,
    });
    return true;
  } catch {
    return false;
  }
}

/** Registers the namespace and search attributes when missing, and waits until they are usable. */
export async function ensureNamespace(settings: TemporalSettings, timeoutMs = 120_000): Promise<void> {
  const { namespace } = settings;
  let connection: Connection;
  try {
    connection = await connectClient(settings, { connectTimeout: 10_000 });
  } catch (error) {
    throw new StackError(
      'CLUSTER_START_FAILED',
      `cannot connect to the cluster's frontend at ${settings.connection.address}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  try {
    for (;;) {
      try {
        await ensureRegistered(connection, namespace);
        await registerSearchAttributes(connection, namespace);
        if (await usable(connection, namespace)) return;
      } catch (error) {
        lastError = error; // the namespace cache has not caught up yet
      }
      if (Date.now() > deadline) {
        const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
        throw new StackError(
          'CLUSTER_START_FAILED',
          `namespace ${namespace} was not usable within ${timeoutMs / 1000} s${detail}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await connection.close().catch(() => undefined);
  }
}
