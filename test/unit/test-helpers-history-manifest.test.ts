// The replay gate's recorded histories are append-only: each file matches its SHA-256 line in
// test/fixtures/histories/SHA256SUMS, every file has a line, no line was ever changed or removed
// (every committed version of the manifest is contained in the current one), and the recorder
// refuses to record a history that exists.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  appendToManifest,
  HISTORY_FIXTURES_DIR,
  manifestFile,
  manifestMismatches,
  parseManifest,
  readManifest,
} from '../helpers/history-manifest';
import { RECORDINGS, recordingsToMake } from '../helpers/history-recorder';
import { describeWithTools } from '../helpers/tool-requirements';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

test('every recorded history matches its line in SHA256SUMS, and every line has its file', () => {
  expect(readManifest().size).toBeGreaterThan(0);
  expect(manifestMismatches()).toEqual([]);
});

test('every recording has its history, and recording one again is refused', () => {
  expect(recordingsToMake([]).map((recording) => recording.name)).toEqual([]);
  const name = RECORDINGS[0]!.name;
  expect(() => recordingsToMake([name])).toThrow(`refusing to record again ${name}`);
});

describe('a manifest in a scratch directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tideline-manifest-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('reports an edited, an unlisted and a missing history', () => {
    const edited = path.join(dir, 'a.history.json');
    const gone = path.join(dir, 'b.history.json');
    writeFileSync(edited, '{"events":[]}\n');
    writeFileSync(gone, '{}\n');
    appendToManifest(edited);
    appendToManifest(gone);
    expect(manifestMismatches(dir)).toEqual([]);
    expect(() => appendToManifest(edited)).toThrow('already lists a.history.json');

    writeFileSync(edited, '{"events":[{}]}\n');
    rmSync(gone);
    writeFileSync(path.join(dir, 'c.history.json'), '{}\n');
    expect(manifestMismatches(dir)).toEqual([
      'a.history.json differs from its recorded hash',
      'c.history.json is not in SHA256SUMS',
      'b.history.json is listed but missing',
    ]);
  });

  test('refuses a malformed or duplicated line', () => {
    expect(() => parseManifest('nothex  a.history.json\n')).toThrow('line 1');
    const line = `${'0'.repeat(64)}  a.history.json\n`;
    expect(() => parseManifest(line + line)).toThrow('twice');
  });
});

function gitMissing(): string | undefined {
  try {
    execFileSync('git', ['rev-parse', '--git-dir'], { cwd: REPO_ROOT, stdio: 'ignore' });
    return undefined;
  } catch {
    return 'not a git checkout (or no git): the manifest history cannot be read';
  }
}

describeWithTools('SHA256SUMS in git', gitMissing(), () => {
  test('no committed version of it has a line the current one lacks', () => {
    const relative = path.relative(REPO_ROOT, manifestFile(HISTORY_FIXTURES_DIR));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
    const current = readManifest();
    const commits = git('log', '--format=%H', '--', relative).split('\n').filter(Boolean);
    const dropped = commits.flatMap((commit) => {
      const then = parseManifest(git('show', `${commit}:${relative}`));
      return [...then]
        .filter(([name, hash]) => current.get(name) !== hash)
        .map(([name]) => `${name} (as of ${commit.slice(0, 10)})`);
    });
    expect(dropped).toEqual([]);
  });
});
