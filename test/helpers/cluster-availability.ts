// Whether this machine can run the native cluster (`tideline cluster`) in a test, decided when the
// test file loads (test/helpers/tool-requirements.ts): the pinned server, its SQL tool and the Web UI
// server built (by `npm run setup` / pretest) or buildable (Go is there), and PostgreSQL found or
// installable (apt-get as root; `up` installs it). The reason, when not, names what is missing.
import { existsSync } from 'node:fs';
import { findPostgresBin } from '../../cluster/postgres';
import {
  MIN_GO_MINOR,
  cachedClusterTools,
  cachedClusterUi,
  ensureClusterTools,
  ensureClusterUi,
} from '../../scripts/setup-cluster';
import { goToolMissing } from './tool-requirements';

/** Why the native cluster cannot run here, or undefined when it can. */
export function clusterMissing(): string | undefined {
  const built = cachedClusterTools() !== undefined && cachedClusterUi() !== undefined;
  const tools = goToolMissing('the pinned Temporal server or its Web UI server', built, MIN_GO_MINOR);
  if (tools !== undefined) return tools;
  if (findPostgresBin(process.env) !== undefined) return undefined;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) return undefined; // `up` installs it
  return 'PostgreSQL (initdb, pg_ctl) is not installed and cannot be installed here (not root, or no apt-get); set TIDELINE_POSTGRES_BIN';
}

/** Builds the server, its SQL tool and the Web UI server when missing; throws when a build fails. */
export async function ensureClusterBuilt(): Promise<void> {
  const log = (line: string) => console.warn(line);
  for (const built of [await ensureClusterTools({ log }), await ensureClusterUi({ log })]) {
    if ('unavailable' in built) throw new Error(`the native cluster cannot be built: ${built.unavailable}`);
  }
}
