// The pinned Temporal server and SQL tool of the native cluster. The build (once, under a lock) is
// scripts/setup-cluster.js — plain JS so `npm run setup` runs it before anything is compiled —
// loaded from the checkout at run time, as the Temporal CLI's setup script is.
import path from 'node:path';
import type * as ClusterSetup from '../scripts/setup-cluster';
import { packageRoot, toolsDirectory } from '../stack/temporal-binary';
import { StackError } from '../stack/stack-error';

export interface ClusterTools {
  server: string;
  sqlTool: string;
  schemaDir: string;
  version: string;
}

function loadSetup(): typeof ClusterSetup {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(packageRoot(), 'scripts', 'setup-cluster.js')) as typeof ClusterSetup;
}

/** The built server and schema tool, building them (3–6 min, once) when missing. */
export async function ensureClusterTools(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<ClusterTools> {
  let result: Awaited<ReturnType<typeof ClusterSetup.ensureClusterTools>>;
  try {
    result = await loadSetup().ensureClusterTools({ env, root: packageRoot(), log });
  } catch (error) {
    throw new StackError(
      'CLUSTER_BUILD_FAILED',
      `cannot build the Temporal server: ${error instanceof Error ? error.message : String(error)}`,
      'check network access to the Go module proxy, then run `node scripts/setup-cluster.js`',
    );
  }
  if ('unavailable' in result) {
    throw new StackError(
      'CLUSTER_BUILD_FAILED',
      `cannot build the Temporal server: ${result.unavailable}`,
      `install Go (https://go.dev/dl/); the server is then built once into ${path.join(toolsDirectory(process.env), 'bin')}`,
    );
  }
  return result;
}
