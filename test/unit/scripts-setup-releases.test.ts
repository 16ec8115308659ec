// The releases manifest (releases/releases.json) and the checks of scripts/setup-releases.js: each
// release is named by a full commit of this repository's history, an earlier one than the tree,
// with the definition format that commit writes; a release whose lockfile pins other versions
// than this checkout's is refused rather than built with the wrong dependencies.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { dependencyDifferences, readManifest } from '../../scripts/setup-releases';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const git = (...args: string[]) => execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8' });

test('every release is a commit of this history before the tree, with the format it writes', () => {
  const releases = readManifest();
  expect(releases.map((r) => r.name)).toEqual([...releases.map((r) => r.name)].sort());
  expect(releases.length).toBeGreaterThan(0);
  for (const release of releases) {
    // An ancestor of HEAD (throws otherwise), so the tree is a later release.
    git('merge-base', '--is-ancestor', release.commit, 'HEAD');
    const definition = git('show', `${release.commit}:dsl/definition.ts`);
    expect(definition).toContain(`export const DEFINITION_FORMAT_VERSION = ${release.formatVersion};`);
  }
});

test('a release pinning another version of a dependency, or one this checkout lacks, is refused', () => {
  const lock = (packages: Record<string, { version: string }>) =>
    JSON.stringify({ packages: { '': { name: 'tideline' }, ...packages } });
  const release = lock({ 'node_modules/a': { version: '1.0.0' }, 'node_modules/b': { version: '2.0.0' } });
  expect(
    dependencyDifferences(
      release,
      lock({
        'node_modules/a': { version: '1.0.0' },
        'node_modules/b': { version: '2.0.0' },
        'node_modules/c': { version: '3.0.0' },
      }),
    ),
  ).toEqual([]);
  expect(dependencyDifferences(release, lock({ 'node_modules/a': { version: '1.0.1' } }))).toEqual([
    'node_modules/a: 1.0.0 in the release, 1.0.1 here',
    'node_modules/b: 2.0.0 in the release, absent here',
  ]);
});
