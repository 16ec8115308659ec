// Finds the `temporal` CLI that runs the dev server, building it (pinned, with Go) when nothing
// usable exists. The logic lives in scripts/setup-temporal.js (plain JS, so `npm test` can run it
// before anything is compiled); it is loaded from the checkout at run time because the compiled
// CLI (dist/cli/…) has no copy of the scripts folder.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as TemporalSetup from '../../scripts/setup-temporal';
import { CliError } from '../errors';

const SETUP_SCRIPT = path.join('scripts', 'setup-temporal.js');

/** The checkout (or installed package) that holds this file: the nearest folder with the setup script. */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(path.join(dir, SETUP_SCRIPT)) && existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${SETUP_SCRIPT} above ${from}`);
    dir = parent;
  }
}

function loadSetup(): typeof TemporalSetup {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(packageRoot(), SETUP_SCRIPT)) as typeof TemporalSetup;
}

/** The `temporal` executable: TIDELINE_TEMPORAL_BIN, PATH, .tools/bin, or a fresh pinned build. */
export async function resolveTemporalExecutable(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<string> {
  const setup = loadSetup();
  try {
    const resolved = await setup.ensureTemporalBinary({ env, root: packageRoot(), log });
    return resolved.path;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(
      'TEMPORAL_UNAVAILABLE',
      `cannot provide the Temporal dev server: ${message}`,
      'install Go ≥ 1.23 (the CLI is then built once), or install the Temporal CLI and set TIDELINE_TEMPORAL_BIN',
    );
  }
}
