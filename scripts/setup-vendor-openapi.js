#!/usr/bin/env node
// Provides the vendor's API document for the API-conformance tests: the `openapi.yaml` that the pinned
// tiger-cli module (scripts/setup-tiger-cli.js pins the version) ships, copied to
// <repo>/.tools/vendor/ (gitignored), so the document is never part of the repository.
// The module is fetched with `go mod download -json` through the configured Go module proxy only
// (`direct` is dropped from GOPROXY). A stamp holds the copy's SHA-256, so later runs only hash a
// small file. Plain CommonJS so it runs before TypeScript is built; synchronous so a test module
// can ensure the document while Jest collects its tests. Without Go it reports `unavailable` and
// exits 0; the API-conformance tests then skip, naming the reason.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { findGo } = require('./setup-temporal');
const { TIGER_CLI_MODULE, TIGER_CLI_VERSION } = require('./setup-tiger-cli');

const REPO_ROOT = path.resolve(__dirname, '..');
const DOCUMENT_IN_MODULE = 'openapi.yaml';

function vendorOpenApiPaths(root = REPO_ROOT) {
  const dir = path.join(root, '.tools', 'vendor');
  return {
    dir,
    document: path.join(dir, `tiger-cli-${TIGER_CLI_VERSION}-openapi.yaml`),
    stampFile: path.join(dir, `tiger-cli-${TIGER_CLI_VERSION}-openapi.json`),
  };
}

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The copied document when the stamp says it came from the pinned version and is unchanged. */
function cachedVendorOpenApi(root = REPO_ROOT) {
  const paths = vendorOpenApiPaths(root);
  try {
    const stamp = JSON.parse(fs.readFileSync(paths.stampFile, 'utf8'));
    if (stamp.version !== TIGER_CLI_VERSION || stamp.sha256 !== sha256(paths.document)) return undefined;
    return paths.document;
  } catch {
    return undefined;
  }
}

/** GOPROXY with `direct` and `off` removed: modules come from a proxy or not at all. */
function proxyOnly(goproxy) {
  const proxies = goproxy
    .split(/[,|]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '' && entry !== 'direct' && entry !== 'off');
  return proxies.length > 0 ? proxies.join(',') : undefined;
}

function goEnv(go, env, name) {
  const result = spawnSync(go.path, ['env', name], { encoding: 'utf8', env, timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : '';
}

function writeAtomic(file, content) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/**
 * The pinned vendor document, fetched and copied when missing.
 * @returns {{ path: string, source: 'cached' | 'fetched' } | { unavailable: string }}
 */
function ensureVendorOpenApi(options = {}) {
  const env = options.env || process.env;
  const log = options.log || ((line) => process.stderr.write(`${line}\n`));
  const cached = cachedVendorOpenApi(options.root);
  if (cached) return { path: cached, source: 'cached' };
  const go = findGo(env);
  if (!go) return { unavailable: 'Go was not found (PATH or /usr/local/go/bin)' };
  const proxy = proxyOnly(goEnv(go, env, 'GOPROXY'));
  if (!proxy) return { unavailable: 'GOPROXY names no Go module proxy' };
  const paths = vendorOpenApiPaths(options.root);
  fs.mkdirSync(paths.dir, { recursive: true });
  const target = `${TIGER_CLI_MODULE}@${TIGER_CLI_VERSION}`;
  log(`tideline: fetching ${target} (go mod download) for its ${DOCUMENT_IN_MODULE}`);
  const download = spawnSync(go.path, ['mod', 'download', '-json', target], {
    encoding: 'utf8',
    env: { ...env, GOPROXY: proxy },
    cwd: paths.dir,
    timeout: 300_000,
  });
  let moduleDir;
  try {
    moduleDir = download.status === 0 ? JSON.parse(download.stdout).Dir : undefined;
  } catch {
    moduleDir = undefined;
  }
  if (typeof moduleDir !== 'string') {
    throw new Error(
      `go mod download ${target} failed: ${(download.stderr || String(download.error)).trim()}`,
    );
  }
  const content = fs.readFileSync(path.join(moduleDir, DOCUMENT_IN_MODULE));
  writeAtomic(paths.document, content);
  const digest = crypto.createHash('sha256').update(content).digest('hex');
  writeAtomic(paths.stampFile, JSON.stringify({ version: TIGER_CLI_VERSION, sha256: digest }));
  return { path: paths.document, source: 'fetched' };
}

module.exports = { vendorOpenApiPaths, cachedVendorOpenApi, ensureVendorOpenApi, proxyOnly };

if (require.main === module) {
  try {
    const result = ensureVendorOpenApi();
    if ('unavailable' in result)
      console.error(`tideline: vendor API document not fetched: ${result.unavailable}`);
  } catch (error) {
    console.error(`tideline: ${error.message}`);
    process.exitCode = 1;
  }
}
