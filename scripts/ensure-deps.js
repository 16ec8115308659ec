#!/usr/bin/env node
// Makes `npm test` and `npm run demo` work on a fresh clone: installs node_modules when
// they are missing or older than the lockfile. Plain JS so it runs before anything is installed.
const { existsSync, statSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const marker = path.join(root, 'node_modules', '.package-lock.json');
const lock = path.join(root, 'package-lock.json');

const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  // `npm install` rather than `npm ci`: the lockfile pins every version, but registries that lack
  // other platforms' optional binaries (@swc/core-darwin-*, …) make `npm ci` refuse the lockfile.
  console.error('tideline: installing npm dependencies (npm install, pinned by package-lock.json)…');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error('tideline: `npm install` failed; check your network access to the npm registry and retry.');
    process.exit(result.status ?? 1);
  }
}
