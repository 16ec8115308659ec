// scripts/setup-browser.js decides where the Web UI browser test's Chromium comes from, and when it
// cannot come at all says why (the test then skips with that reason). These cases never run apt-get:
// an explicit TIDELINE_CHROMIUM is never installed, and an empty PATH has no apt-get.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureChromium, findChromium, installImpossible } from '../../scripts/setup-browser';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-browser-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('TIDELINE_CHROMIUM wins when it is an executable', () => {
  const file = path.join(dir, 'my-chromium');
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  expect(findChromium({ TIDELINE_CHROMIUM: file, PATH: '' })).toBe(file);
  expect(ensureChromium({ env: { TIDELINE_CHROMIUM: file, PATH: '' }, log: () => undefined })).toEqual({
    path: file,
  });
});

test('a TIDELINE_CHROMIUM that is not there is reported, not installed', () => {
  const missing = path.join(dir, 'no-such-chromium');
  const lines: string[] = [];
  const result = ensureChromium({ env: { TIDELINE_CHROMIUM: missing, PATH: '' }, log: (l) => lines.push(l) });
  expect(result).toEqual({ unavailable: `TIDELINE_CHROMIUM=${missing} is not an executable` });
  expect(lines).toEqual([]);
});

test('without apt-get (or as another user than root) installing is impossible, and it says why', () => {
  const why = installImpossible({ PATH: dir });
  if (process.platform !== 'linux') expect(why).toMatch(/not Debian/);
  else if (process.getuid?.() !== 0) expect(why).toBe('not running as root');
  else expect(why).toBe('no apt-get on PATH');
});
