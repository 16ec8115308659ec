// Where tideline keeps the tools it builds from Go modules (the Temporal CLI that runs the dev
// server, …). Shared by scripts/setup-temporal.js and the compiled CLI, so both pick the same place:
//   1. $TIDELINE_TOOLS_DIR, when set;
//   2. <root>/.tools, when <root> is a writable checkout (not inside node_modules), as CI, the
//      tests and `npm run setup` expect;
//   3. otherwise the per-user cache, $XDG_CACHE_HOME/tideline or ~/.cache/tideline: an installed
//      package (`npm install -g`, or a dependency) or a read-only copy (the Docker image's /app)
//      must not write next to its own files.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** The per-user cache folder: $XDG_CACHE_HOME/tideline, else ~/.cache/tideline. */
function userCacheDir(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'tideline');
}

/** Whether `root` is a checkout the current user may write to (an installed package never is). */
function isWritableCheckout(root) {
  if (path.resolve(root).split(path.sep).includes('node_modules')) return false;
  const existing = path.join(root, '.tools');
  try {
    fs.accessSync(fs.existsSync(existing) ? existing : root, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The tools folder for the package or checkout at `root` (see the rule at the top). */
function toolsDir(root, env = process.env) {
  if (env.TIDELINE_TOOLS_DIR) return path.resolve(env.TIDELINE_TOOLS_DIR);
  if (isWritableCheckout(root)) return path.join(root, '.tools');
  return userCacheDir(env);
}

module.exports = { toolsDir, userCacheDir, isWritableCheckout };
