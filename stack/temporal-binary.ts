// Finds the `temporal` CLI that runs the dev server, building it (pinned, with Go) when nothing
// usable exists. The logic lives in scripts/setup-temporal.js (plain JS, so `npm test` can run it
// before anything is compiled); it is loaded from the checkout or installed package at run time
// because the compiled CLI (dist/cli/…) has no copy of the scripts folder. Where a build goes —
// .tools/ of a writable checkout, else the per-user cache — is scripts/tools-dir.js's rule, which
// the setup script applies to the same package root.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type * as TemporalSetup from '../scripts/setup-temporal';
import type * as ToolsDir from '../scripts/tools-dir';
import { StackError } from './stack-error';

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

/**
 * Where tools built from Go modules live for this package: $TIDELINE_TOOLS_DIR, <root>/.tools in a
 * writable checkout, else $XDG_CACHE_HOME/tideline (~/.cache/tideline).
 */
export function toolsDirectory(env: NodeJS.ProcessEnv): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tools = require(path.join(packageRoot(), 'scripts', 'tools-dir.js')) as typeof ToolsDir;
  return tools.toolsDir(packageRoot(), env);
}

/** The `temporal` executable: TIDELINE_TEMPORAL_BIN, PATH, <tools>/bin, or a fresh pinned build there. */
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
    throw new StackError(
      'TEMPORAL_UNAVAILABLE',
      `cannot provide the Temporal dev server: ${message}`,
      `install Go ≥ 1.23 (the CLI is then built once, into ${path.join(toolsDirectory(env), 'bin')}), or install the Temporal CLI and set TIDELINE_TEMPORAL_BIN`,
    );
  }
}
