// Every installed package runs on the Node the project supports (package.json `engines.node`, its
// lowest version): a dependency that asks for a newer Node (npm's EBADENGINE warning) is pinned to
// a release that does not, with `overrides`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const ROOT = path.resolve(__dirname, '..', '..');
const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as T;

interface LockedPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

const supported = read<{ engines: { node: string } }>('package.json').engines.node;
const lowest = semver.minVersion(supported);

test('the project names the lowest Node it supports', () => {
  expect(lowest?.version).toMatch(/^20\./);
});

test('no installed package asks for a newer Node than that', () => {
  const locked = read<{ packages: Record<string, LockedPackage> }>('package-lock.json').packages;
  const refusing = Object.entries(locked).flatMap(([where, entry]) => {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (where === '' || range === undefined || lowest === null) return [];
    return semver.satisfies(lowest, range) ? [] : [`${where}@${entry.version ?? '?'} needs node ${range}`];
  });
  expect(refusing).toEqual([]);
});
