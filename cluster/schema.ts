// The server's PostgreSQL schemas, applied or upgraded with the pinned SQL tool at every `up`:
// create the database (an existing one is fine), `setup-schema -v 0.0` (a no-op once a version is
// recorded) and `update-schema` to the versions shipped with the pinned server. The password goes
// to the tool through its environment (SQL_PASSWORD), never on its command line.
import path from 'node:path';
import { StackError } from '../stack/stack-error';
import { runCommand } from './processes';
import { DATABASES } from './server-config';
import type { ClusterState } from './state';

export interface SchemaTools {
  sqlTool: string;
  /** …/schema/postgresql/v12 (holding temporal/versioned and visibility/versioned). */
  schemaDir: string;
}

async function sqlTool(
  tools: SchemaTools,
  state: ClusterState,
  database: string,
  args: string[],
): Promise<string> {
  const env = { ...process.env, SQL_PASSWORD: state.postgres.password };
  const common = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(state.ports.postgres)];
  const full = [...common, '-u', state.postgres.user, '--db', database, ...args];
  const result = await runCommand(tools.sqlTool, full, { env, timeoutMs: 180_000 });
  if (result.status !== 0) {
    if (args[0] === 'create' && /already exists/.test(result.output)) return result.output;
    throw new StackError(
      'CLUSTER_START_FAILED',
      `the schema tool failed on ${database} (${args[0] ?? ''}, exit ${result.status}): ${result.output.slice(-1500)}`,
    );
  }
  return result.output;
}

/** Creates and upgrades both databases; resolves once both are at the shipped schema versions. */
export async function applySchemas(tools: SchemaTools, state: ClusterState): Promise<void> {
  for (const [database, folder] of [
    [DATABASES.temporal, 'temporal'],
    [DATABASES.visibility, 'visibility'],
  ] as const) {
    await sqlTool(tools, state, database, ['create']);
    await sqlTool(tools, state, database, ['setup-schema', '-v', '0.0']);
    await sqlTool(tools, state, database, [
      'update-schema',
      '-d',
      path.join(tools.schemaDir, folder, 'versioned'),
    ]);
  }
}
