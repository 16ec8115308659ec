// Before a worker polls, its namespace must exist: otherwise the SDK only fails deep inside worker
// creation (after bundling the workflows), with a gRPC dump, and can leave the process hanging.
// One describe call up front turns that into a one-line reason with the fix.
//
// The same goes for tideline's search attributes: without them every run's first upsert fails its
// workflow task, again and again, and nothing says why outside the Web UI.
import type { OperatorService } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { NativeConnection } from '@temporalio/worker';
import { TIDELINE_SEARCH_ATTRIBUTES } from '../contract/search-attributes';
import { WorkerError } from './errors';

/** gRPC statuses the SDK's ServiceError carries (numeric codes). */
export const GRPC_NOT_FOUND = 5;
export const GRPC_ALREADY_EXISTS = 6;

/** The numeric gRPC status of an SDK ServiceError (or a gRPC error), if it has one. */
export function grpcCode(error: unknown): number | undefined {
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

type SearchAttributeTypeName = (typeof TIDELINE_SEARCH_ATTRIBUTES)[number]['type'];

/** The operator API's numbers for the types tideline uses (temporal.api.enums.v1.IndexedValueType). */
const INDEXED_VALUE_TYPES: Record<SearchAttributeTypeName, number> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

type OperatorConnection = {
  operatorService: Pick<OperatorService, 'listSearchAttributes' | 'addSearchAttributes'>;
};

export interface SearchAttributeProblem {
  name: string;
  type: SearchAttributeTypeName;
  /** Set when the namespace has the name with another type (registration cannot fix that). */
  foundType?: string;
}

/** tideline's search attributes the namespace lacks (or has with another type). */
export async function missingSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
): Promise<SearchAttributeProblem[]> {
  const answer = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = answer.customAttributes ?? {};
  const problems: SearchAttributeProblem[] = [];
  for (const { name, type } of TIDELINE_SEARCH_ATTRIBUTES) {
    const found = custom[name];
    if (found === undefined || found === null) problems.push({ name, type });
    else if (Number(found) !== INDEXED_VALUE_TYPES[type]) {
      const typeName = temporal.api.enums.v1.IndexedValueType[Number(found)] ?? String(found);
      problems.push({ name, type, foundType: typeName.replace('INDEXED_VALUE_TYPE_', '') });
    }
  }
  return problems;
}

/**
 * Registers the missing ones (`temporal operator search-attribute create`). Idempotent: what is
 * there already is left alone; a name taken with another type is an error (it cannot be changed).
 */
export async function registerSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
): Promise<{ added: string[]; present: string[] }> {
  const problems = await missingSearchAttributes(connection, namespace);
  const conflicts = problems.filter((p) => p.foundType !== undefined);
  if (conflicts.length > 0) {
    throw new WorkerError(
      'TIDELINE_SEARCH_ATTRIBUTES_MISSING',
      `namespace "${namespace}" has ${conflicts.map((c) => `${c.name} as ${c.foundType} (tideline needs ${c.type})`).join(', ')}; ` +
        'a search attribute cannot change type: remove it (temporal operator search-attribute remove) first',
    );
  }
  const added = problems.map((p) => p.name);
  if (problems.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(problems.map((p) => [p.name, INDEXED_VALUE_TYPES[p.type]])),
    });
  }
  const present = TIDELINE_SEARCH_ATTRIBUTES.map((a) => a.name).filter((name) => !added.includes(name));
  return { added, present };
}

/** The `temporal` CLI command that registers the attributes, for messages and docs/cli.md. */
export function searchAttributeCreateCommand(namespace: string, names?: readonly string[]): string {
  const wanted = TIDELINE_SEARCH_ATTRIBUTES.filter((a) => names === undefined || names.includes(a.name));
  return (
    `temporal operator search-attribute create --namespace ${namespace} ` +
    wanted.map((a) => `--name ${a.name} --type ${a.type}`).join(' ')
  );
}

/**
 * Throws TIDELINE_SEARCH_ATTRIBUTES_MISSING (one line: which, and the command that registers them)
 * when the namespace lacks tideline's search attributes: every run upserts them, and an upsert of
 * an unregistered attribute fails the workflow task again and again, so the run never moves.
 * Gives a warning instead when the server does not let this connection list them.
 */
export async function ensureSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  address: string,
): Promise<string | undefined> {
  let problems: SearchAttributeProblem[];
  try {
    problems = await missingSearchAttributes(connection, namespace);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `could not check the search attributes of namespace "${namespace}" (${reason}); runs stall unless ${TIDELINE_SEARCH_ATTRIBUTES.map((a) => a.name).join(', ')} are registered`;
  }
  if (problems.length === 0) return undefined;
  const what = problems
    .map((p) => (p.foundType ? `${p.name} (is ${p.foundType}, needs ${p.type})` : `${p.name} (${p.type})`))
    .join(', ');
  throw new WorkerError(
    'TIDELINE_SEARCH_ATTRIBUTES_MISSING',
    `namespace "${namespace}" on ${address} lacks tideline's search attributes ${what}; register them with ` +
      `\`tideline setup --address ${address} --namespace ${namespace}\` or \`${searchAttributeCreateCommand(
        namespace,
        problems.map((p) => p.name),
      )}\` ` +
      `(Temporal Cloud: add them in the namespace's settings or with \`tcld namespace search-attributes add\`)`,
  );
}
