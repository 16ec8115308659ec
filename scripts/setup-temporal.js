#!/usr/bin/env node
// Provides the `temporal` CLI (which runs the Temporal dev server) for tests and the demo.
// Plain CommonJS so it runs before TypeScript is built. Resolution order:
//   1. $TIDELINE_TEMPORAL_BIN, 2. `temporal` on PATH, 3. <tools>/bin/temporal (if it runs),
//   4. build it with `go install` into <tools>/bin (pinned: later CLI versions carry a
//      `replace` directive that `go install` refuses).
// <tools> is <repo>/.tools in a writable checkout and the per-user cache (~/.cache/tideline) in an
// installed package; $TIDELINE_TOOLS_DIR overrides both (scripts/tools-dir.js has the rule).
// The resolved absolute path is written to <tools>/temporal-path for the test helpers.
// When everything is in place the script only stats a few files, so it stays fast.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { setTimeout, setInterval, clearInterval } = require('node:timers');
const { toolsDir: locateToolsDir } = require('./tools-dir');

const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
const TEMPORAL_CLI_VERSION = 'v1.5.1';
const MIN_GO_MINOR = 23; // the CLI's go.mod needs Go 1.23 or later
const REPO_ROOT = path.resolve(__dirname, '..');
const EXE_SUFFIX = process.platform === 'win32' ? '.exe' : '';

class SetupError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'SetupError';
    this.code = code;
  }
}

/** The files of the Temporal CLI under the tools folder of `root` (scripts/tools-dir.js). */
function toolsPaths(root = REPO_ROOT, env = process.env) {
  const toolsDir = locateToolsDir(root, env);
  return {
    toolsDir,
    binDir: path.join(toolsDir, 'bin'),
    binary: path.join(toolsDir, 'bin', `temporal${EXE_SUFFIX}`),
    pathFile: path.join(toolsDir, 'temporal-path'),
    // Remembers size and mtime of a verified .tools binary, so `--version` runs only once.
    stampFile: path.join(toolsDir, 'temporal-verified.json'),
    lockDir: path.join(toolsDir, 'temporal-build.lock'),
  };
}

function isExecutableFile(file) {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on a PATH string, like `command -v`. */
function findOnPath(name, pathValue) {
  if (!pathValue) return undefined;
  for (const dir of pathValue.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.resolve(dir, name + EXE_SUFFIX);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Runs `<file> --version`; returns its first output line, or undefined when it does not run. */
function probeVersion(file) {
  const result = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  if (result.error || result.status !== 0) return undefined;
  return (result.stdout || '').trim().split('\n')[0] || 'temporal (unknown version)';
}

function readStamp(stampFile) {
  try {
    return JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

function fileSignature(file) {
  const stat = fs.statSync(file);
  return { path: file, size: stat.size, mtimeMs: stat.mtimeMs };
}

function writeFileAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/** Whether the .tools binary runs; a successful check is remembered by size and mtime. */
function toolsBinaryWorks(paths, probe) {
  if (!isExecutableFile(paths.binary)) return false;
  const signature = fileSignature(paths.binary);
  const stamp = readStamp(paths.stampFile);
  if (
    stamp &&
    stamp.path === signature.path &&
    stamp.size === signature.size &&
    stamp.mtimeMs === signature.mtimeMs
  ) {
    return true;
  }
  if (probe(paths.binary) === undefined) return false;
  fs.mkdirSync(paths.toolsDir, { recursive: true });
  writeFileAtomic(paths.stampFile, JSON.stringify(signature));
  return true;
}

/**
 * Finds an existing `temporal` CLI without building anything.
 * @returns {{ path: string, source: 'env' | 'path' | 'tools' } | undefined}
 * @throws SetupError TIDELINE_TEMPORAL_BIN_INVALID when $TIDELINE_TEMPORAL_BIN is set but unusable.
 */
function resolveTemporalBinary(options = {}) {
  const env = options.env || process.env;
  const paths = toolsPaths(options.root, env);
  const probe = options.probe || probeVersion;

  const explicit = env.TIDELINE_TEMPORAL_BIN;
  if (explicit) {
    const file = path.resolve(explicit);
    if (!isExecutableFile(file)) {
      throw new SetupError(
        'TIDELINE_TEMPORAL_BIN_INVALID',
        `TIDELINE_TEMPORAL_BIN points to ${file}, which is not an executable file.`,
      );
    }
    return { path: file, source: 'env' };
  }
  const onPath = findOnPath('temporal', env.PATH);
  if (onPath) return { path: onPath, source: 'path' };
  if (toolsBinaryWorks(paths, probe)) return { path: paths.binary, source: 'tools' };
  return undefined;
}

const DEFAULT_GO_FALLBACKS = [path.join('/usr/local/go/bin', `go${EXE_SUFFIX}`)];

/** Finds the `go` command on PATH or at its usual install place; returns its path and version. */
function findGo(env, fallbackPaths = DEFAULT_GO_FALLBACKS) {
  const candidates = [findOnPath('go', env.PATH), ...fallbackPaths];
  for (const goPath of candidates) {
    if (!goPath || !isExecutableFile(goPath)) continue;
    const result = spawnSync(goPath, ['env', 'GOVERSION'], { encoding: 'utf8', env, timeout: 30_000 });
    if (result.status === 0) return { path: goPath, version: result.stdout.trim() };
  }
  return undefined;
}

function goVersionIsSufficient(version, minMinor = MIN_GO_MINOR) {
  const match = /^go1\.(\d+)/.exec(version);
  return match === null || Number(match[1]) >= minMinor; // unknown formats (devel) are given a try
}

function missingToolsMessage(detail) {
  return [
    `tideline needs the Temporal CLI (\`temporal\`) to run its dev server, and ${detail}.`,
    'Install one of:',
    '  - the Temporal CLI: https://docs.temporal.io/cli#install (put `temporal` on PATH,',
    '    or set TIDELINE_TEMPORAL_BIN=/path/to/temporal), or',
    `  - Go ${'>='} 1.${MIN_GO_MINOR} (https://go.dev/dl/); tideline then builds the CLI once, into .tools/bin`,
    '    of a checkout or the per-user cache ~/.cache/tideline/bin (TIDELINE_TOOLS_DIR overrides).',
  ].join('\n');
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function processIsAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * A lock directory (holding the builder's pid) so that two `npm test` runs in one checkout do not
 * build a tool at once; a lock whose builder died is taken over.
 */
async function withBuildLock(paths, log, action, what = 'the Temporal CLI') {
  fs.mkdirSync(paths.toolsDir, { recursive: true });
  const ownerFile = path.join(paths.lockDir, 'pid');
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(paths.lockDir);
      fs.writeFileSync(ownerFile, String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = Number.parseInt(fs.existsSync(ownerFile) ? fs.readFileSync(ownerFile, 'utf8') : '', 10);
      if (Number.isInteger(owner) && !processIsAlive(owner)) {
        fs.rmSync(paths.lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) {
        log(`tideline: another process is building ${what}; waiting for it…`);
        announced = true;
      }
      await sleep(1000);
    }
  }
  try {
    return await action();
  } finally {
    fs.rmSync(paths.lockDir, { recursive: true, force: true });
  }
}

/**
 * A tool built from a Go module (tiger-cli, the Temporal server): what `cached()` finds, else —
 * with a Go of at least 1.`minGoMinor` — `build(go)` once under the build lock, looking again
 * inside it (another process may have built it meanwhile). Without Go: `{ unavailable }`.
 */
async function ensureGoTool({ env, log, paths, minGoMinor, what, cached, build }) {
  const hit = cached();
  if (hit) return { ...hit, source: 'cached' };
  const found = findGo(env);
  const go = found && goVersionIsSufficient(found.version, minGoMinor) ? found : undefined;
  if (!go) return { unavailable: `Go >= 1.${minGoMinor} was not found (PATH or /usr/local/go/bin)` };
  return withBuildLock(
    paths,
    log,
    async () => {
      const again = cached();
      if (again) return { ...again, source: 'cached' };
      return { ...(await build(go)), source: 'built' };
    },
    what,
  );
}

/**
 * Builds the pinned CLI with `go install` into `gobin`. Progress goes to `log` (stderr by default).
 * @returns {Promise<string>} the built binary's absolute path.
 */
async function buildTemporal(options) {
  const env = options.env || process.env;
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const gobin = path.resolve(options.gobin);
  const go = options.go || findGo(env, options.goFallbackPaths);
  if (!go)
    throw new SetupError('TIDELINE_TEMPORAL_UNAVAILABLE', missingToolsMessage('neither it nor Go was found'));
  if (!goVersionIsSufficient(go.version)) {
    throw new SetupError(
      'TIDELINE_TEMPORAL_UNAVAILABLE',
      missingToolsMessage(`the installed Go (${go.version}) is too old to build it`),
    );
  }
  fs.mkdirSync(gobin, { recursive: true });
  const target = `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`;
  log(`tideline: building the Temporal CLI ${TEMPORAL_CLI_VERSION} with ${go.version} into ${gobin}`);
  log('tideline: this takes 3–4 minutes on a fresh machine (it is done once).');
  const started = Date.now();
  const child = spawn(go.path, ['install', target], {
    env: { ...env, GOBIN: gobin },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const ticker = setInterval(() => {
    log(`tideline: still building the Temporal CLI… ${Math.round((Date.now() - started) / 1000)} s`);
  }, 30_000);
  const status = await new Promise((resolve) => {
    child.on('error', () => resolve(-1));
    child.on('exit', (code) => resolve(code === null ? -1 : code));
  }).finally(() => clearInterval(ticker));
  const binary = path.join(gobin, `temporal${EXE_SUFFIX}`);
  if (status !== 0 || probeVersion(binary) === undefined) {
    throw new SetupError(
      'TIDELINE_TEMPORAL_BUILD_FAILED',
      `\`go install ${target}\` failed (exit ${status}). Check network access to the Go module proxy, ` +
        'or install the Temporal CLI yourself (https://docs.temporal.io/cli#install) and set TIDELINE_TEMPORAL_BIN.',
    );
  }
  log(`tideline: built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/**
 * Resolves the CLI, building it when nothing usable exists, and records the path in
 * <tools>/temporal-path.
 * @returns {Promise<{ path: string, source: 'env' | 'path' | 'tools' | 'built' }>}
 */
async function ensureTemporalBinary(options = {}) {
  const env = options.env || process.env;
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const paths = toolsPaths(options.root, env);
  let resolved = resolveTemporalBinary({ env, root: options.root });
  if (!resolved) {
    resolved = await withBuildLock(paths, log, async () => {
      // Another process may have finished the build while we waited for the lock.
      const again = resolveTemporalBinary({ env, root: options.root });
      if (again) return again;
      const built = await buildTemporal({
        env,
        log,
        gobin: paths.binDir,
        go: options.go,
        goFallbackPaths: options.goFallbackPaths,
      });
      toolsBinaryWorks(paths, probeVersion);
      return { path: built, source: 'built' };
    });
  }
  recordTemporalPath(paths, resolved.path);
  return resolved;
}

function recordTemporalPath(paths, binaryPath) {
  let current;
  try {
    current = fs.readFileSync(paths.pathFile, 'utf8').trim();
  } catch {
    current = undefined;
  }
  if (current === binaryPath) return;
  fs.mkdirSync(paths.toolsDir, { recursive: true });
  writeFileAtomic(paths.pathFile, `${binaryPath}\n`);
}

/**
 * For tests: the path of the `temporal` CLI recorded by this script (or found now without
 * building). Throws SetupError TIDELINE_TEMPORAL_MISSING with the command to run otherwise.
 */
function readTemporalPath(options = {}) {
  const env = options.env || process.env;
  const paths = toolsPaths(options.root, env);
  if (!env.TIDELINE_TEMPORAL_BIN) {
    try {
      const recorded = fs.readFileSync(paths.pathFile, 'utf8').trim();
      if (recorded && isExecutableFile(recorded)) return recorded;
    } catch {
      // not recorded yet: fall through to a fresh lookup
    }
  }
  const resolved = resolveTemporalBinary({ env, root: options.root });
  if (resolved) return resolved.path;
  throw new SetupError(
    'TIDELINE_TEMPORAL_MISSING',
    'The Temporal CLI was not found. Run `npm run setup` (or `node scripts/setup-temporal.js`) first.',
  );
}

async function main() {
  try {
    const resolved = await ensureTemporalBinary();
    if (process.argv.includes('--print')) process.stdout.write(`${resolved.path}\n`);
  } catch (error) {
    if (error instanceof SetupError) {
      process.stderr.write(`tideline setup: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

module.exports = {
  TEMPORAL_CLI_MODULE,
  TEMPORAL_CLI_VERSION,
  SetupError,
  toolsPaths,
  findOnPath,
  findGo,
  goVersionIsSufficient,
  readStamp,
  withBuildLock,
  ensureGoTool,
  resolveTemporalBinary,
  buildTemporal,
  ensureTemporalBinary,
  readTemporalPath,
};

if (require.main === module) {
  void main();
}
