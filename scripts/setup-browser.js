#!/usr/bin/env node
// Provides the headless Chromium the Web UI browser test drives (test/integration/stack-web-ui-browser.test.ts,
// through playwright-core, which never downloads a browser of its own): Debian's `chromium` package.
// Lookup: $TIDELINE_CHROMIUM, then /usr/bin/chromium, then `chromium` / `chromium-browser` on PATH.
// When none is there and we are root with apt-get (CI, a fresh Debian machine), it runs
// `apt-get install -y chromium`. It never fails setup: where installing is impossible (not root, no
// apt-get, no package registry) it prints one line and the browser test skips, saying why.
// Plain CommonJS so it runs before TypeScript is built; when Chromium is in place it only stats files.
'use strict';

const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { findOnPath } = require('./setup-temporal');

const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const PACKAGE = 'chromium';
// apt-get waits this long for another apt/dpkg (e.g. the `setup` and `pretest` of two terminals).
const APT_LOCK_WAIT_SECONDS = 600;

/** The Chromium executable to drive, or undefined when there is none. */
function findChromium(env = process.env) {
  const explicit = env.TIDELINE_CHROMIUM;
  if (explicit) return findOnPath(path.basename(explicit), path.dirname(path.resolve(explicit)));
  return (
    findOnPath('chromium', path.dirname(DEBIAN_CHROMIUM)) ??
    findOnPath('chromium', env.PATH) ??
    findOnPath('chromium-browser', env.PATH)
  );
}

/** Why Chromium cannot be installed here, or undefined when apt-get can do it. */
function installImpossible(env = process.env) {
  if (process.platform !== 'linux') return `this is ${process.platform}, not Debian`;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'not running as root';
  if (findOnPath('apt-get', env.PATH) === undefined) return 'no apt-get on PATH';
  return undefined;
}

function aptGet(args, log) {
  const result = spawnSync('apt-get', ['-o', `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`, ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    // apt's progress goes to stderr so that stdout stays clean for callers that read it.
    stdio: ['ignore', 2, 2],
  });
  if (result.error) log(`tideline: apt-get ${args.join(' ')}: ${result.error.message}`);
  return result.status === 0;
}

/**
 * Makes sure Chromium is there. Returns `{ path }` or `{ unavailable: reason }`; never throws for
 * a missing browser, because only one test needs it.
 */
function ensureChromium(options = {}) {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line) => console.error(line));
  const found = findChromium(env);
  if (found !== undefined) return { path: found };
  if (env.TIDELINE_CHROMIUM)
    return { unavailable: `TIDELINE_CHROMIUM=${env.TIDELINE_CHROMIUM} is not an executable` };
  const impossible = installImpossible(env);
  if (impossible !== undefined) {
    return {
      unavailable: `no Chromium, and it cannot be installed here (${impossible}): install Debian's chromium package`,
    };
  }
  log(
    `tideline: installing Debian's ${PACKAGE} package for the Web UI browser test (apt-get install -y ${PACKAGE})…`,
  );
  // A fresh machine may have no package lists yet: update once, then try again.
  const installed =
    aptGet(['install', '-y', PACKAGE], log) ||
    (aptGet(['update'], log) && aptGet(['install', '-y', PACKAGE], log));
  const after = findChromium(env);
  if (installed && after !== undefined) return { path: after };
  return { unavailable: `apt-get install ${PACKAGE} failed (see apt's output above)` };
}

if (require.main === module) {
  try {
    const result = ensureChromium();
    if ('unavailable' in result)
      console.error(`tideline: the Web UI browser test will be skipped: ${result.unavailable}`);
  } catch (error) {
    // Setup goes on whatever happens here: only the browser test needs Chromium.
    console.error(
      `tideline: the Web UI browser test will be skipped: ${error instanceof Error ? error.message : error}`,
    );
  }
}

module.exports = { DEBIAN_CHROMIUM, findChromium, installImpossible, ensureChromium };
