// Whether this machine can run the native cluster (`tideline cluster`) in a test: the pinned server
// and SQL tool built (by `npm run setup` / pretest, or now, when Go is there), and PostgreSQL found
// or installable (apt-get as root). Gives the reason when not, so the test says why it skipped.
import { existsSync } from 'node:fs';
import { findPostgresBin } from '../../cli/cluster/postgres';
import { ensureClusterTools } from '../../scripts/setup-cluster';

export async function clusterUnavailableReason(): Promise<string | undefined> {
  const tools = await ensureClusterTools({ log: (line) => console.warn(line) });
  if ('unavailable' in tools) return `the Temporal server cannot be built: ${tools.unavailable}`;
  if (findPostgresBin(process.env) !== undefined) return undefined;
  if (process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) return undefined; // `up` installs it
  return 'PostgreSQL (initdb, pg_ctl) is not installed and cannot be installed here (not root, or no apt-get); set TIDELINE_POSTGRES_BIN';
}
