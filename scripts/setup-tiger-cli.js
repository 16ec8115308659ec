#!/usr/bin/env node
// Builds the vendor's CLI and MCP server (tiger-cli, pinned) into <repo>/.tools/bin/tiger, for the
// test that runs it against the local cloud. Plain CommonJS so it runs before TypeScript is built.
// `go install` is refused (the module proxy does not list tiger-cli's versions), so the pinned module
// is fetched with `go mod download` (through the Go module proxy only), copied to a writable scratch
// directory under .tools, built with `go build ./cmd/tiger`, and the copy removed: tiger-cli's code
// never lands in the repository. A stamp remembers the built binary, so later runs only stat files.
// Without Go it reports `unavailable` and exits 0; the test then skips.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { SetupError, ensureGoTool, readStamp } = require('./setup-temporal');

const TIGER_CLI_MODULE = 'github.com/timescale/tiger-cli';
const TIGER_CLI_VERSION = 'v0.21.2';
const MIN_GO_MINOR = 25; // its go.mod says `go 1.25.5`
const REPO_ROOT = path.resolve(__dirname, '..');
const EXE_SUFFIX = process.platform === 'win32' ? '.exe' : '';

function tigerPaths(root = REPO_ROOT) {
  const toolsDir = path.join(root, '.tools');
  return {
    toolsDir,
    binary: path.join(toolsDir, 'bin', `tiger${EXE_SUFFIX}`),
    stampFile: path.join(toolsDir, 'tiger-cli.json'),
    lockDir: path.join(toolsDir, 'tiger-cli-build.lock'),
    scratchDir: path.join(toolsDir, `tiger-cli-src.${process.pid}`),
  };
}

function signature(file) {
  try {
    const stat = fs.statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

/** The cached binary when it was built from the pinned version and is unchanged since. */
function cachedTigerCli(root = REPO_ROOT) {
  const paths = tigerPaths(root);
  const stamp = readStamp(paths.stampFile);
  const current = signature(paths.binary);
  if (!stamp || !current || stamp.version !== TIGER_CLI_VERSION) return undefined;
  if (stamp.size !== current.size || stamp.mtimeMs !== current.mtimeMs) return undefined;
  return paths.binary;
}

function run(file, args, options) {
  return new Promise((resolve) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ status: -1, stdout, stderr: String(error) }));
    child.on('exit', (code) => resolve({ status: code === null ? -1 : code, stdout, stderr }));
  });
}

function makeWritable(dir) {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(file);
    else if (entry.isFile()) fs.chmodSync(file, 0o644);
  }
}

async function buildTigerCli(paths, go, env, log) {
  const target = `${TIGER_CLI_MODULE}@${TIGER_CLI_VERSION}`;
  const started = Date.now();
  log(`tideline: building tiger-cli ${TIGER_CLI_VERSION} with ${go.version} into ${paths.binary}`);
  const download = await run(go.path, ['mod', 'download', '-json', target], { env, cwd: paths.toolsDir });
  const moduleDir = download.status === 0 ? JSON.parse(download.stdout).Dir : undefined;
  if (typeof moduleDir !== 'string') {
    throw new SetupError(
      'TIDELINE_TIGER_CLI_BUILD_FAILED',
      `go mod download ${target} failed: ${download.stderr}`,
    );
  }
  fs.rmSync(paths.scratchDir, { recursive: true, force: true });
  try {
    fs.cpSync(moduleDir, paths.scratchDir, { recursive: true });
    makeWritable(paths.scratchDir);
    const ldflags = `-X ${TIGER_CLI_MODULE}/internal/tiger/config.Version=${TIGER_CLI_VERSION.slice(1)}`;
    const tmpBinary = `${paths.binary}.${process.pid}.tmp`;
    fs.mkdirSync(path.dirname(paths.binary), { recursive: true });
    const build = await run(go.path, ['build', '-ldflags', ldflags, '-o', tmpBinary, './cmd/tiger'], {
      env,
      cwd: paths.scratchDir,
    });
    if (build.status !== 0) {
      throw new SetupError(
        'TIDELINE_TIGER_CLI_BUILD_FAILED',
        `go build of ${target} failed: ${build.stderr}`,
      );
    }
    fs.renameSync(tmpBinary, paths.binary);
  } finally {
    fs.rmSync(paths.scratchDir, { recursive: true, force: true });
  }
  const stamp = { version: TIGER_CLI_VERSION, ...signature(paths.binary) };
  fs.writeFileSync(paths.stampFile, JSON.stringify(stamp));
  log(`tideline: built tiger-cli in ${Math.round((Date.now() - started) / 1000)} s`);
  return paths.binary;
}

/**
 * The pinned tiger-cli binary, built when missing.
 * @returns {Promise<{ path: string, source: 'cached' | 'built' } | { unavailable: string }>}
 */
async function ensureTigerCli(options = {}) {
  const env = options.env || process.env;
  const paths = tigerPaths(options.root);
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const cached = () => {
    const binary = cachedTigerCli(options.root);
    return binary ? { path: binary } : undefined;
  };
  return ensureGoTool({
    env,
    log,
    paths,
    minGoMinor: MIN_GO_MINOR,
    what: 'tiger-cli',
    cached,
    build: async (go) => ({ path: await buildTigerCli(paths, go, env, log) }),
  });
}

module.exports = {
  TIGER_CLI_MODULE,
  TIGER_CLI_VERSION,
  MIN_GO_MINOR,
  tigerPaths,
  cachedTigerCli,
  ensureTigerCli,
};

if (require.main === module) {
  ensureTigerCli().then(
    (result) => {
      if ('unavailable' in result) console.error(`tideline: tiger-cli not built: ${result.unavailable}`);
      else console.log(result.path);
    },
    (error) => {
      console.error(`tideline: ${error.code ?? 'ERROR'}: ${error.message}`);
      process.exitCode = 1;
    },
  );
}
