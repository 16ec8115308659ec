#!/usr/bin/env node
// Builds the pinned Temporal server and its SQL schema tool (for `tideline cluster`, the native
// PostgreSQL-backed cluster) into <tools>/bin/temporal-server and <tools>/bin/temporal-sql-tool,
// where <tools> is the tools folder of scripts/tools-dir.js (.tools/ in a checkout).
// Plain CommonJS so it runs before TypeScript is built. `go install` builds into a scratch GOBIN
// (the binaries are called `server` and `sql` there) and the results are renamed. A stamp remembers
// the built binaries, so later runs only stat files. Shares setup-temporal's build lock helper.
// Without Go it reports `unavailable` and exits 0; `tideline cluster up` then explains, and the
// native-cluster test skips with the reason. The Temporal Web UI server (ui-server, optional: the
// cluster runs without it) is built the same way into <tools>/bin/temporal-ui-server. PostgreSQL
// comes from the OS package: when it is missing and we are root with apt-get (CI, a fresh Debian
// machine), setup installs it (`tideline cluster up` would otherwise do it on first use).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { setInterval, clearInterval } = require('node:timers');
const { SetupError, ensureGoTool, findGo, readStamp } = require('./setup-temporal');

const SERVER_MODULE = 'go.temporal.io/server';
const SERVER_VERSION = 'v1.29.1';
const MIN_GO_MINOR = 24; // the server's go.mod needs a recent Go
const REPO_ROOT = path.resolve(__dirname, '..');
const { toolsDir: locateToolsDir } = require('./tools-dir');
const UI_MODULE = 'github.com/temporalio/ui-server/v2';
const UI_VERSION = 'v2.42.1'; // its assets are embedded: one binary serves the Web UI

function clusterToolPaths(root = REPO_ROOT) {
  const toolsDir = locateToolsDir(root);
  return {
    toolsDir,
    server: path.join(toolsDir, 'bin', 'temporal-server'),
    sqlTool: path.join(toolsDir, 'bin', 'temporal-sql-tool'),
    // The PostgreSQL schemas shipped in the server module, copied so runs need no Go.
    schemaDir: path.join(toolsDir, 'temporal-server-schema', 'postgresql', 'v12'),
    stampFile: path.join(toolsDir, 'temporal-server.json'),
    lockDir: path.join(toolsDir, 'temporal-server-build.lock'),
    scratchBin: path.join(toolsDir, `temporal-server-gobin.${process.pid}`),
  };
}

/** Size and mtime of a built binary (what the stamp remembers). */
function statOf(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat && { size: stat.size, mtimeMs: stat.mtimeMs };
}

function matchesStamp(stamped, file) {
  const now = statOf(file);
  return Boolean(stamped && now && stamped.size === now.size && stamped.mtimeMs === now.mtimeMs);
}

/** The cached binaries when they were built from the pinned version and are unchanged since. */
function cachedClusterTools(root = REPO_ROOT) {
  const paths = clusterToolPaths(root);
  const stamp = readStamp(paths.stampFile);
  if (!stamp || stamp.version !== SERVER_VERSION) return undefined;
  if (!matchesStamp(stamp.server, paths.server) || !matchesStamp(stamp.sqlTool, paths.sqlTool))
    return undefined;
  if (!fs.existsSync(path.join(paths.schemaDir, 'temporal', 'versioned'))) return undefined;
  return {
    server: paths.server,
    sqlTool: paths.sqlTool,
    schemaDir: paths.schemaDir,
    version: SERVER_VERSION,
  };
}

function goInstall(go, target, gobin, env) {
  return new Promise((resolve) => {
    const child = spawn(go.path, ['install', target], {
      env: { ...env, GOBIN: gobin },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    child.on('error', (error) => resolve({ status: -1, stderr: String(error) }));
    child.on('exit', (code) => resolve({ status: code === null ? -1 : code, stderr }));
  });
}

async function buildClusterTools(paths, go, env, log) {
  const started = Date.now();
  log(`tideline: building the Temporal server ${SERVER_VERSION} and its SQL tool with ${go.version}`);
  log('tideline: this takes 3–6 minutes on a fresh machine (it is done once).');
  const ticker = setInterval(() => {
    log(`tideline: still building the Temporal server… ${Math.round((Date.now() - started) / 1000)} s`);
  }, 30_000);
  fs.rmSync(paths.scratchBin, { recursive: true, force: true });
  fs.mkdirSync(paths.scratchBin, { recursive: true });
  try {
    for (const [pkg, name, dest] of [
      ['cmd/server', 'server', paths.server],
      ['cmd/tools/sql', 'sql', paths.sqlTool],
    ]) {
      const target = `${SERVER_MODULE}/${pkg}@${SERVER_VERSION}`;
      const result = await goInstall(go, target, paths.scratchBin, env);
      if (result.status !== 0) {
        throw new SetupError(
          'CLUSTER_BUILD_FAILED',
          `go install ${target} failed (exit ${result.status}): ${result.stderr.trim()}`,
        );
      }
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      fs.renameSync(path.join(paths.scratchBin, name), dest);
    }
    const moduleDir = serverModuleDir({ env, go });
    if (!moduleDir)
      throw new SetupError('CLUSTER_BUILD_FAILED', 'the server module is not in the Go module cache');
    fs.rmSync(paths.schemaDir, { recursive: true, force: true });
    fs.cpSync(path.join(moduleDir, 'schema', 'postgresql', 'v12'), paths.schemaDir, { recursive: true });
    spawnSync('chmod', ['-R', 'u+w', paths.schemaDir]); // the module cache is read-only
  } finally {
    clearInterval(ticker);
    fs.rmSync(paths.scratchBin, { recursive: true, force: true });
  }
  const stamp = {
    version: SERVER_VERSION,
    server: statOf(paths.server),
    sqlTool: statOf(paths.sqlTool),
  };
  fs.writeFileSync(paths.stampFile, JSON.stringify(stamp));
  log(`tideline: built the Temporal server in ${Math.round((Date.now() - started) / 1000)} s`);
}

function clusterUiPaths(root = REPO_ROOT) {
  const toolsDir = locateToolsDir(root);
  return {
    toolsDir,
    uiServer: path.join(toolsDir, 'bin', 'temporal-ui-server'),
    stampFile: path.join(toolsDir, 'temporal-ui-server.json'),
    lockDir: path.join(toolsDir, 'temporal-ui-server-build.lock'),
    scratchBin: path.join(toolsDir, `temporal-ui-server-gobin.${process.pid}`),
  };
}

/** The built Web UI server when it was built from the pinned version and is unchanged since. */
function cachedClusterUi(root = REPO_ROOT) {
  const paths = clusterUiPaths(root);
  const stamp = readStamp(paths.stampFile);
  if (!stamp || stamp.version !== UI_VERSION || !matchesStamp(stamp.uiServer, paths.uiServer))
    return undefined;
  return { uiServer: paths.uiServer, version: UI_VERSION };
}

async function buildClusterUi(paths, go, env, log) {
  const started = Date.now();
  log(`tideline: building the Temporal Web UI server ${UI_VERSION} with ${go.version} (once)`);
  fs.rmSync(paths.scratchBin, { recursive: true, force: true });
  fs.mkdirSync(paths.scratchBin, { recursive: true });
  try {
    const target = `${UI_MODULE}/cmd/server@${UI_VERSION}`;
    const result = await goInstall(go, target, paths.scratchBin, env);
    if (result.status !== 0) {
      throw new SetupError(
        'CLUSTER_BUILD_FAILED',
        `go install ${target} failed (exit ${result.status}): ${result.stderr.trim()}`,
      );
    }
    fs.mkdirSync(path.dirname(paths.uiServer), { recursive: true });
    fs.renameSync(path.join(paths.scratchBin, 'server'), paths.uiServer);
  } finally {
    fs.rmSync(paths.scratchBin, { recursive: true, force: true });
  }
  fs.writeFileSync(
    paths.stampFile,
    JSON.stringify({ version: UI_VERSION, uiServer: statOf(paths.uiServer) }),
  );
  log(`tideline: built the Web UI server in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** A pinned Go tool of the cluster, built when missing (with its own lock and stamp). */
function ensurePinned(options, what, pathsOf, cachedOf, buildInto) {
  const env = options.env || process.env;
  const paths = pathsOf(options.root);
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  return ensureGoTool({
    env,
    log,
    paths,
    minGoMinor: MIN_GO_MINOR,
    what,
    cached: () => cachedOf(options.root),
    build: async (go) => {
      await buildInto(paths, go, env, log);
      return cachedOf(options.root);
    },
  });
}

/**
 * The pinned Web UI server, built when missing (its own lock and stamp: the server is not rebuilt).
 * @returns {Promise<{ uiServer: string, version: string, source: 'cached' | 'built' } | { unavailable: string }>}
 */
function ensureClusterUi(options = {}) {
  return ensurePinned(options, 'the Temporal Web UI server', clusterUiPaths, cachedClusterUi, buildClusterUi);
}

/**
 * The pinned server and schema tool, built when missing.
 * @returns {Promise<{ server: string, sqlTool: string, version: string, source: 'cached' | 'built' } | { unavailable: string }>}
 */
function ensureClusterTools(options = {}) {
  return ensurePinned(
    options,
    'the Temporal server',
    clusterToolPaths,
    cachedClusterTools,
    buildClusterTools,
  );
}

const POSTGRES_ROOT = '/usr/lib/postgresql';

/** A directory holding initdb: TIDELINE_POSTGRES_BIN, or the newest /usr/lib/postgresql/N/bin. */
function findPostgresBin(env = process.env) {
  if (env.TIDELINE_POSTGRES_BIN)
    return fs.existsSync(path.join(env.TIDELINE_POSTGRES_BIN, 'initdb'))
      ? env.TIDELINE_POSTGRES_BIN
      : undefined;
  if (!fs.existsSync(POSTGRES_ROOT)) return undefined;
  const versions = fs
    .readdirSync(POSTGRES_ROOT)
    .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(POSTGRES_ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(POSTGRES_ROOT, versions[0], 'bin');
}

/**
 * PostgreSQL's binaries, installed with apt-get when missing and running as root.
 * @returns {{ bin: string } | { unavailable: string }}
 */
function ensurePostgres(options = {}) {
  const env = options.env || process.env;
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const found = findPostgresBin(env);
  if (found) return { bin: found };
  if (process.getuid?.() !== 0 || !fs.existsSync('/usr/bin/apt-get'))
    return {
      unavailable: 'PostgreSQL is not installed and cannot be installed here (not root, or no apt-get)',
    };
  log('tideline: installing PostgreSQL with apt-get (once)…');
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    spawnSync('apt-get', ['-o', 'DPkg::Lock::Timeout=600', ...args], { env: aptEnv, stdio: ['ignore', 2, 2] })
      .status === 0;
  const install = ['install', '-y', '--no-install-recommends', 'postgresql'];
  // A fresh machine may have no package lists yet: update once, then try again.
  const installed = apt(install) || (apt(['update']) && apt(install));
  const after = findPostgresBin(env);
  if (installed && after) return { bin: after };
  return { unavailable: "apt-get install postgresql failed (see apt's output above)" };
}

/** The module cache directory of the pinned server (its schema/ and config/ live there). */
function serverModuleDir(options = {}) {
  const env = options.env || process.env;
  const go = options.go || findGo(env);
  if (!go) return undefined;
  const result = spawnSync(go.path, ['env', 'GOMODCACHE'], { encoding: 'utf8', env, timeout: 30_000 });
  if (result.status !== 0) return undefined;
  const dir = path.join(result.stdout.trim(), 'go.temporal.io', `server@${SERVER_VERSION}`);
  return fs.existsSync(dir) ? dir : undefined;
}

module.exports = {
  SERVER_MODULE,
  SERVER_VERSION,
  MIN_GO_MINOR,
  UI_VERSION,
  clusterToolPaths,
  cachedClusterTools,
  ensureClusterTools,
  cachedClusterUi,
  ensureClusterUi,
  serverModuleDir,
  findPostgresBin,
  ensurePostgres,
};

if (require.main === module) {
  ensureClusterTools()
    .then(async (result) => {
      if ('unavailable' in result) {
        console.error(`tideline: Temporal server not built: ${result.unavailable}`);
        return;
      }
      if (process.argv.includes('--print')) console.log(result.server);
      // A failed Web UI build is reported; `cluster up` runs without it (the native-cluster test fails).
      const ui = await ensureClusterUi().catch((error) => ({ unavailable: error.message }));
      if ('unavailable' in ui) console.error(`tideline: Temporal Web UI server not built: ${ui.unavailable}`);
    })
    .then(() => {
      const postgres = ensurePostgres();
      if ('unavailable' in postgres) console.error(`tideline: ${postgres.unavailable}`);
    })
    .catch((error) => {
      console.error(`tideline: ${error.code ?? 'ERROR'}: ${error.message}`);
      process.exitCode = 1;
    });
}
