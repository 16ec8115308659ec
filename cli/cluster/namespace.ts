// The cluster's namespace and tideline's search attributes (TIDELINE_SEARCH_ATTRIBUTES), through the
// server's own APIs. A real server creates no namespace, and each service refreshes its namespace
// cache about every 10 s: `up` returns only once a visibility query by a tideline search attribute
// succeeds in the namespace, which is when workers and `tideline run` can use it.
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { CliError } from '../errors';

const { IndexedValueType } = temporal.api.enums.v1;
const RETENTION = '7 days';

const INDEXED_TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
};

function isNotFound(error: unknown): boolean {
  return (error as { code?: number }).code === 5; // gRPC NOT_FOUND
}

async function ensureRegistered(connection: Connection, namespace: string): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      description: 'tideline runbooks',
      workflowExecutionRetentionPeriod: msToTs(RETENTION),
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 6) throw error; // ALREADY_EXISTS: a concurrent `up`
  }
}

async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing = new Set(Object.keys(listed.customAttributes ?? {}));
  const missing = TIDELINE_SEARCH_ATTRIBUTES.filter((attribute) => !existing.has(attribute.name));
  if (missing.length === 0) return;
  const searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const attribute of missing) {
    const type = INDEXED_TYPES[attribute.type];
    if (type === undefined) throw new Error(`unknown search attribute type ${attribute.type}`);
    searchAttributes[attribute.name] = type;
  }
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
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
export async function ensureNamespace(
  address: string,
  namespace: string,
  timeoutMs = 120_000,
): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 10_000 });
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  try {
    for (;;) {
      try {
        await ensureRegistered(connection, namespace);
        await ensureSearchAttributes(connection, namespace);
        if (await usable(connection, namespace)) return;
      } catch (error) {
        lastError = error; // the namespace cache has not caught up yet
      }
      if (Date.now() > deadline) {
        const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
        throw new CliError(
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
