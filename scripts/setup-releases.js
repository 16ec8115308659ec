#!/usr/bin/env node
// Builds the earlier releases named in releases/releases.json, each from its commit alone, into
// .tools/releases/<name>/ — a runnable worker (`dist/worker/main.js`) and its prebuilt workflow
// bundle — so tests can start a real earlier release's worker process and hand its runs to the
// code in the tree (test/integration/workflows-upgrade-from-release.test.ts).
//
// How: `git archive <commit>` (full history is there on a clean clone; tags are not needed),
// `node_modules` linked to this checkout's (refused when the release's package-lock.json pins a
// version this checkout does not have: the build would not be that release), `tsc -p
// tsconfig.build.json` and the release's own scripts/bundle-workflows.js. A stamp
// (.tools/releases/<name>.json) names the commit it was built from; with it in place the script
// only stats a few files. Plain CommonJS so it runs before TypeScript is built.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { withBuildLock } = require('./setup-temporal');

const REPO_ROOT = path.resolve(__dirname, '..');

class ReleaseSetupError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'ReleaseSetupError';
    this.code = code;
  }
}

/** The releases named in releases/releases.json. */
function readManifest(root = REPO_ROOT) {
  const file = path.join(root, 'releases', 'releases.json');
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  const releases = Array.isArray(parsed.releases) ? parsed.releases : [];
  for (const release of releases) {
    const fine =
      typeof release.name === 'string' &&
      /^\d{4}-\d{2}$/.test(release.name) &&
      typeof release.commit === 'string' &&
      /^[0-9a-f]{40}$/.test(release.commit) &&
      Number.isInteger(release.formatVersion);
    if (!fine) {
      throw new ReleaseSetupError(
        'TIDELINE_RELEASE_MANIFEST_INVALID',
        `${file}: each release needs a name (YYYY-MM), a full 40-digit commit and an integer formatVersion; got ${JSON.stringify(release)}`,
      );
    }
  }
  return releases;
}

function releasePaths(name, root = REPO_ROOT) {
  const dir = path.join(root, '.tools', 'releases', name);
  return {
    dir,
    workerEntry: path.join(dir, 'dist', 'worker', 'main.js'),
    workflowBundle: path.join(dir, 'dist', 'workflow-bundle.js'),
    stampFile: path.join(root, '.tools', 'releases', `${name}.json`),
    toolsDir: path.join(root, '.tools', 'releases'),
    lockDir: path.join(root, '.tools', 'releases', 'build.lock'),
  };
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The built release when its stamp names the manifest's commit and its files are there. */
function cachedRelease(release, root = REPO_ROOT) {
  const paths = releasePaths(release.name, root);
  const stamp = readJson(paths.stampFile);
  if (stamp?.commit !== release.commit) return undefined;
  if (!fs.existsSync(paths.workerEntry) || !fs.existsSync(paths.workflowBundle)) return undefined;
  return { ...release, ...paths, builtAt: stamp.builtAt };
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  return { ok: result.status === 0 && !result.error, status: result.status, output, error: result.error };
}

/** Versions a package-lock.json pins, by install path (`node_modules/…`). */
function lockedVersions(lockText) {
  const packages = JSON.parse(lockText).packages ?? {};
  const versions = new Map();
  for (const [where, entry] of Object.entries(packages)) {
    if (where !== '' && typeof entry?.version === 'string') versions.set(where, entry.version);
  }
  return versions;
}

/**
 * Where the release's lockfile pins a package this checkout's lockfile does not have at that
 * version (the shared node_modules would then not be the release's dependencies).
 */
function dependencyDifferences(releaseLock, currentLock) {
  const current = lockedVersions(currentLock);
  const differences = [];
  for (const [where, version] of lockedVersions(releaseLock)) {
    const now = current.get(where);
    if (now !== version) differences.push(`${where}: ${version} in the release, ${now ?? 'absent'} here`);
  }
  return differences;
}

function buildRelease(release, root, log) {
  const paths = releasePaths(release.name, root);
  const started = Date.now();
  const object = run('git', ['-C', root, 'cat-file', '-e', `${release.commit}^{commit}`]);
  if (!object.ok) {
    throw new ReleaseSetupError(
      'TIDELINE_RELEASE_COMMIT_MISSING',
      `release ${release.name}'s commit ${release.commit} is not in this clone (${object.error?.message ?? object.output.trim()}); a shallow clone needs \`git fetch --unshallow\``,
    );
  }
  const lock = run('git', ['-C', root, 'show', `${release.commit}:package-lock.json`]);
  if (!lock.ok) {
    throw new ReleaseSetupError(
      'TIDELINE_RELEASE_BUILD_FAILED',
      `release ${release.name}: no package-lock.json at ${release.commit}`,
    );
  }
  const differences = dependencyDifferences(
    lock.output,
    fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'),
  );
  if (differences.length > 0) {
    throw new ReleaseSetupError(
      'TIDELINE_RELEASE_DEPENDENCIES_DIFFER',
      `release ${release.name} pins dependencies this checkout does not install, so it cannot be built with this node_modules (${differences.length} differ: ${differences.slice(0, 5).join('; ')})`,
    );
  }
  log(`tideline: building release ${release.name} from ${release.commit.slice(0, 12)} into ${paths.dir}`);
  fs.rmSync(paths.stampFile, { force: true });
  fs.rmSync(paths.dir, { recursive: true, force: true });
  fs.mkdirSync(paths.dir, { recursive: true });
  const archive = path.join(paths.toolsDir, `${release.name}.${process.pid}.tar`);
  try {
    const archived = run('git', ['-C', root, 'archive', '--format=tar', '-o', archive, release.commit]);
    const unpacked = archived.ok ? run('tar', ['-xf', archive, '-C', paths.dir]) : archived;
    if (!unpacked.ok) {
      throw new ReleaseSetupError(
        'TIDELINE_RELEASE_BUILD_FAILED',
        `release ${release.name}: git archive / tar failed: ${unpacked.output.trim() || unpacked.error?.message}`,
      );
    }
  } finally {
    fs.rmSync(archive, { force: true });
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(paths.dir, 'node_modules'), 'dir');
  const steps = [
    [
      'tsc -p tsconfig.build.json',
      [path.join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    ],
    ['bundling the workflows', [path.join('scripts', 'bundle-workflows.js')]],
  ];
  for (const [what, args] of steps) {
    const step = run(process.execPath, args, { cwd: paths.dir });
    if (!step.ok) {
      throw new ReleaseSetupError(
        'TIDELINE_RELEASE_BUILD_FAILED',
        `release ${release.name}: ${what} failed (exit ${step.status}):\n${step.output.slice(-4000)}`,
      );
    }
  }
  const formatVersion = require(
    path.join(paths.dir, 'dist', 'dsl', 'definition.js'),
  ).DEFINITION_FORMAT_VERSION;
  if (formatVersion !== release.formatVersion) {
    throw new ReleaseSetupError(
      'TIDELINE_RELEASE_MANIFEST_INVALID',
      `release ${release.name} writes definition format ${formatVersion}, the manifest says ${release.formatVersion}`,
    );
  }
  const builtAt = new Date().toISOString();
  const tmp = `${paths.stampFile}.${process.pid}.tmp`;
  fs.writeFileSync(
    tmp,
    `${JSON.stringify({ name: release.name, commit: release.commit, builtAt }, null, 2)}\n`,
  );
  fs.renameSync(tmp, paths.stampFile);
  log(`tideline: built release ${release.name} in ${Math.round((Date.now() - started) / 1000)} s`);
  return { ...release, ...paths, builtAt };
}

/**
 * Every release of the manifest, built (once, under a lock shared by concurrent setups) or cached.
 * @throws ReleaseSetupError
 */
async function ensureReleases(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const releases = readManifest(root).filter(
    (r) => options.names === undefined || options.names.includes(r.name),
  );
  const built = [];
  for (const release of releases) {
    const hit = cachedRelease(release, root);
    if (hit) {
      built.push(hit);
      continue;
    }
    const paths = releasePaths(release.name, root);
    built.push(
      await withBuildLock(
        paths,
        log,
        async () => cachedRelease(release, root) ?? buildRelease(release, root, log),
        `release ${release.name}`,
      ),
    );
  }
  return built;
}

async function main() {
  try {
    await ensureReleases();
  } catch (error) {
    if (error instanceof ReleaseSetupError) {
      process.stderr.write(`tideline setup: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

module.exports = {
  ReleaseSetupError,
  readManifest,
  releasePaths,
  cachedRelease,
  dependencyDifferences,
  ensureReleases,
};

if (require.main === module) {
  void main();
}
