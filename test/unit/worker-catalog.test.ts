// The worker's runbook catalogue (worker/catalog.ts): what a folder or file of `catalog.runbooks`
// lists, named by definition hash; every problem names its file or entry and says how to fix it;
// and the worker configuration refuses a catalogue or a policy section that does not check.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { definitionHash } from '../../activities/definition-hash';
import { loadRunbookFile } from '../../dsl/loader';
import { loadCatalog } from '../../worker/catalog';
import { loadWorkerConfig } from '../../worker/config';
import { thrownBy } from '../helpers/thrown';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');
const hashOf = (file: string) => definitionHash(loadRunbookFile(file));

let dir: string;
let folder: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-catalog-'));
  folder = path.join(dir, 'runbooks');
  mkdirSync(path.join(folder, 'fleet'), { recursive: true });
  copyFileSync(
    path.join(RUNBOOKS, 'resize-with-rollback.yaml'),
    path.join(folder, 'resize-with-rollback.yaml'),
  );
  copyFileSync(path.join(RUNBOOKS, 'rotate-password.yaml'), path.join(folder, 'rotate-password.yaml'));
  copyFileSync(
    path.join(RUNBOOKS, 'resize-with-rollback.test.yaml'),
    path.join(folder, 'resize-with-rollback.test.yaml'),
  );
  copyFileSync(
    path.join(RUNBOOKS, 'stop-dev-services.yaml'),
    path.join(folder, 'fleet', 'stop-dev-services.yaml'),
  );
  writeFileSync(path.join(folder, 'README.md'), '# not a runbook\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(section: Parameters<typeof loadCatalog>[0]) {
  const problems: string[] = [];
  const catalog = loadCatalog(section, dir, problems);
  return { catalog, problems };
}

describe('loadCatalog', () => {
  test('a folder lists each runbook below it with its name, file and definition hash', () => {
    const { catalog, problems } = load({ runbooks: ['./runbooks'] });
    expect(problems).toEqual([]);
    expect(catalog.mode).toBe('catalog');
    expect(catalog.list).toEqual([
      {
        name: 'stop-dev-services',
        file: path.join('runbooks', 'fleet', 'stop-dev-services.yaml'),
        hash: hashOf(path.join(folder, 'fleet', 'stop-dev-services.yaml')),
      },
      {
        name: 'resize-with-rollback',
        file: path.join('runbooks', 'resize-with-rollback.yaml'),
        hash: hashOf(path.join(folder, 'resize-with-rollback.yaml')),
      },
      {
        name: 'rotate-password',
        file: path.join('runbooks', 'rotate-password.yaml'),
        hash: hashOf(path.join(folder, 'rotate-password.yaml')),
      },
    ]);
    for (const entry of catalog.list) {
      expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(catalog.entries.get(entry.hash)).toEqual({ name: entry.name, file: entry.file });
    }
    expect(catalog.entries.size).toBe(3);
  });

  test('the hash is the one of the file in the repository, wherever the copy lies', () => {
    const { catalog } = load({ runbooks: ['./runbooks/rotate-password.yaml'] });
    expect(catalog.list.map((entry) => entry.hash)).toEqual([
      hashOf(path.join(RUNBOOKS, 'rotate-password.yaml')),
    ]);
  });

  test('*.test.yaml files are left out of a folder', () => {
    const { catalog } = load({ runbooks: ['./runbooks'] });
    expect(catalog.list.map((entry) => entry.file).filter((file) => file.includes('.test.'))).toEqual([]);
    expect(catalog.list.some((entry) => entry.file.endsWith('README.md'))).toBe(false);
  });

  test('a runbook that does not validate names its file and says to run tideline validate', () => {
    writeFileSync(
      path.join(folder, 'broken.yaml'),
      'apiVersion: tideline/v1\nname: broken\nsteps:\n  - id: x\n    call: service.nope\n',
    );
    const { catalog, problems } = load({ runbooks: ['./runbooks'] });
    const shown = path.join('runbooks', 'broken.yaml');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`catalog: ${shown} is not a valid runbook (`);
    expect(problems[0]).toMatch(/problem\(s\); first: .+\)/);
    expect(problems[0]).toContain(`check it with \`tideline validate ${shown}\``);
    // The good ones are still read (every problem is reported, the caller refuses to start).
    expect(catalog.list.map((entry) => entry.name)).not.toContain('broken');
    expect(catalog.list).toHaveLength(3);
  });

  test('a path that does not exist names its entry and path', () => {
    const { catalog, problems } = load({ runbooks: ['./runbooks', './missing'] });
    expect(problems).toEqual([
      'catalog.runbooks[1]: ./missing cannot be read (ENOENT); give a runbook file or a folder of runbooks, relative to the configuration file',
    ]);
    expect(catalog.list).toHaveLength(3);
  });

  test('a sha256 pin that differs names the entry, both hashes and what to do', () => {
    const file = path.join(folder, 'rotate-password.yaml');
    const actual = hashOf(file);
    const pinned = 'ab'.repeat(32);
    const { catalog, problems } = load({
      runbooks: [{ path: './runbooks/rotate-password.yaml', sha256: pinned }],
    });
    expect(problems).toEqual([
      `catalog.runbooks[0]: ${path.join('runbooks', 'rotate-password.yaml')} has definition hash ` +
        `${actual.slice(0, 12)}…, not the pinned ${pinned.slice(0, 12)}…; review the change, then pin ` +
        'the new hash (tideline catalog list)',
    ]);
    expect(catalog.list).toEqual([]);
  });

  test('a sha256 pin that matches lists the file', () => {
    const file = path.join(folder, 'rotate-password.yaml');
    const { catalog, problems } = load({
      runbooks: [{ path: './runbooks/rotate-password.yaml', sha256: hashOf(file) }],
    });
    expect(problems).toEqual([]);
    expect(catalog.list.map((entry) => entry.name)).toEqual(['rotate-password']);
  });

  test('a sha256 pin on a folder names the entry and says a pin is for one file', () => {
    const { catalog, problems } = load({ runbooks: [{ path: './runbooks', sha256: 'cd'.repeat(32) }] });
    expect(problems).toEqual([
      'catalog.runbooks[0]: sha256 pins one file, but ./runbooks is a folder; list the file itself with its sha256',
    ]);
    expect(catalog.list).toEqual([]);
  });

  test('development: true reads the files but runs any definition', () => {
    const { catalog, problems } = load({ runbooks: ['./runbooks'], development: true });
    expect(problems).toEqual([]);
    expect(catalog.mode).toBe('development');
    expect(catalog.list).toHaveLength(3);
  });

  test('no catalog section: development, no entries', () => {
    const { catalog, problems } = load(undefined);
    expect(problems).toEqual([]);
    expect(catalog).toEqual({ mode: 'development', entries: new Map(), list: [] });
  });
});

describe('loadWorkerConfig with catalog and policies', () => {
  const cloud = `
cloud:
  baseUrl: https://api.example.com/public/api/v1
  projects:
    p1: { accessKey: AK, secretKey: SK }
`;
  const loadWith = (content: string) => {
    const configFile = path.join(dir, 'worker.yaml');
    return loadWorkerConfig({
      env: { TIDELINE_CONFIG: configFile },
      readFile: (file) => {
        expect(file).toBe(configFile);
        return content;
      },
    });
  };

  test('reads a valid catalogue relative to the configuration file', () => {
    const config = loadWith(`${cloud}catalog:\n  runbooks: [./runbooks]\n`);
    expect(config.catalog?.mode).toBe('catalog');
    expect(config.catalog?.list.map((entry) => entry.name).sort()).toEqual([
      'resize-with-rollback',
      'rotate-password',
      'stop-dev-services',
    ]);
  });

  test('refuses a catalogue with a problem: TIDELINE_CONFIG_INVALID naming it', () => {
    writeFileSync(path.join(folder, 'broken.yaml'), 'apiVersion: tideline/v1\nname: broken\nsteps: 3\n');
    const error = thrownBy(() => loadWith(`${cloud}catalog:\n  runbooks: [./runbooks, ./gone.yaml]\n`));
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toContain(`${path.join('runbooks', 'broken.yaml')} is not a valid runbook`);
    expect(error.message).toContain('catalog.runbooks[1]: ./gone.yaml cannot be read (ENOENT)');
  });

  test('refuses a policy whose CEL does not parse, naming the rule', () => {
    const error = thrownBy(() =>
      loadWith(
        `${cloud}policies:\n  - name: bad\n    when: "target.environment == 'PROD"\n    effect: deny\n`,
      ),
    );
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toMatch(/policies\[0\]\.when: cannot parse/);
  });

  test('refuses a window rule naming an undefined calendar, with its path', () => {
    const error = thrownBy(() =>
      loadWith(
        `${cloud}policies:\n  - { name: w, when: 'true', effect: window, calendar: nope, outside: wait }\n`,
      ),
    );
    expect(error.code).toBe('TIDELINE_CONFIG_INVALID');
    expect(error.message).toContain('policies');
    expect(error.message).toContain('`nope` is not a calendar');
  });

  test('compiles valid policies into the configuration', () => {
    const config = loadWith(`${cloud}policies:\n  - { name: no-fridays, when: 'true', effect: warn }\n`);
    expect(config.governance?.rules.map((rule) => rule.spec.name)).toEqual(['no-fridays']);
  });
});
