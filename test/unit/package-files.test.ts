// What the npm package ships (package.json "files") and what the Docker image holds are the same
// files, and both are complete: no Docker engine runs here, so the Dockerfile is parsed instead.
// Its build stage copies every source folder the compiled code comes from, its final stage copies
// exactly the package's files (plus the production node_modules), and its command runs the worker.
// test/integration/package-install.test.ts installs the packed package and runs that command.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { toolsPaths } from '../../scripts/setup-temporal';
import { isWritableCheckout, toolsDir, userCacheDir } from '../../scripts/tools-dir';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

interface PackageJson {
  private?: boolean;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
}
const pkg = JSON.parse(read('package.json')) as PackageJson;
/** The package's file entries without the trailing slash of folders; exclusions left out. */
const shipped = pkg.files.filter((entry) => !entry.startsWith('!')).map((entry) => entry.replace(/\/$/, ''));

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages, each with its instructions (comments dropped, continuations joined). */
function dockerStages(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of logical) {
    const match = /^(\w+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`unparsed Dockerfile line: ${line}`);
    const keyword = (match[1] as string).toUpperCase();
    const args = match[2] as string;
    if (keyword === 'FROM') stages.push({ from: args, instructions: [] });
    else stages.at(-1)?.instructions.push({ keyword, args });
  }
  return stages;
}

/** A COPY's sources (from the context or another stage) and the paths it creates, relative to WORKDIR. */
function copied(args: string): { fromStage: boolean; sources: string[]; created: string[] } {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const rest = words.filter((word) => !word.startsWith('--'));
  const destination = rest.pop() as string;
  const fromStage = flags.some((flag) => flag.startsWith('--from='));
  const into = destination.replace(/^\.\/?/, '').replace(/\/$/, '');
  const created = rest.map((source) => {
    if (destination.endsWith('/')) return path.posix.join(into, path.posix.basename(source));
    return into;
  });
  return { fromStage, sources: rest, created };
}

/** The top-level folders the compiled code comes from: tsconfig.build.json's, and what they import. */
function compiledFolders(): string[] {
  const build = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
  const folders = new Set(build.include);
  const queue = [...build.include];
  while (queue.length > 0) {
    const folder = queue.shift() as string;
    const walk = (dir: string): void => {
      for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
        const relative = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(relative);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
          for (const match of read(relative).matchAll(/(?:from|import|require\()\s*'(\.\.?\/[^']+)'/g)) {
            const target = path.relative(ROOT, path.resolve(ROOT, dir, match[1] as string));
            const top = target.split(path.sep)[0] as string;
            // Type-only imports of the plain-JS scripts compile to nothing.
            if (top === 'scripts' || top.startsWith('..') || folders.has(top)) continue;
            folders.add(top);
            queue.push(top);
          }
        }
      }
    };
    walk(folder);
  }
  return [...folders].sort();
}

/** Scripts the compiled code loads at run time (by path, from the package root), and what they require. */
function runtimeScripts(): string[] {
  const found = new Set<string>();
  const sourceFolders = compiledFolders();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.ts')) {
        for (const match of read(relative).matchAll(/'scripts',\s*'([\w-]+\.js)'/g)) {
          found.add(`scripts/${match[1] as string}`);
        }
      }
    }
  };
  for (const folder of sourceFolders) walk(folder);
  const queue = [...found];
  while (queue.length > 0) {
    const script = queue.shift() as string;
    for (const match of read(script).matchAll(/require\('\.\/([\w-]+)'\)/g)) {
      const required = `scripts/${match[1] as string}.js`;
      if (!found.has(required)) {
        found.add(required);
        queue.push(required);
      }
    }
  }
  return [...found].sort();
}

describe('package.json: what `npm pack` ships', () => {
  test('the CLI, the compiled code, runbooks, schema and the run-time scripts; built by prepack', () => {
    expect(shipped).toEqual(expect.arrayContaining(['bin', 'dist', 'runbooks', 'schema', 'README.md']));
    expect(pkg.files).toContain('!dist/.tsbuildinfo');
    for (const bin of Object.values(pkg.bin)) {
      expect(shipped.some((entry) => bin === entry || bin.startsWith(`${entry}/`))).toBe(true);
      expect(existsSync(path.join(ROOT, bin))).toBe(true);
    }
    expect(pkg.scripts.prepack).toMatch(/\bnpm run (--silent )?build\b/);
    for (const entry of shipped.filter((name) => name !== 'dist')) {
      expect({ entry, exists: existsSync(path.join(ROOT, entry)) }).toEqual({ entry, exists: true });
    }
  });

  test('every script the compiled CLI loads at run time is shipped, with what it requires', () => {
    const scripts = runtimeScripts();
    expect(scripts).toEqual(expect.arrayContaining(['scripts/setup-temporal.js', 'scripts/tools-dir.js']));
    for (const script of scripts) expect(shipped).toContain(script);
    // …and no other script: the rest run in a checkout only (setup, tests, bench).
    expect(shipped.filter((entry) => entry.startsWith('scripts/')).sort()).toEqual(scripts);
  });

  test('stays private: the name "tideline" on the npm registry is not this project; the tarball is the package', () => {
    expect(pkg.private).toBe(true);
  });
});

describe('Dockerfile: the image holds the package', () => {
  const stages = dockerStages(read('Dockerfile'));
  const build = stages[0] as Stage;
  const image = stages.at(-1) as Stage;

  test('the build stage copies every folder the compiled code comes from', () => {
    const sources = build.instructions
      .filter((instruction) => instruction.keyword === 'COPY')
      .flatMap((instruction) => copied(instruction.args).sources);
    const folders = compiledFolders();
    expect(folders).toEqual(expect.arrayContaining(['cli', 'worker', 'workflows', 'contract']));
    for (const folder of folders) expect(sources).toContain(folder);
  });

  test('the final stage copies exactly the package files, plus node_modules and the lock file', () => {
    const created = image.instructions
      .filter((instruction) => instruction.keyword === 'COPY')
      .flatMap((instruction) => copied(instruction.args).created);
    expect(new Set(created).size).toBe(created.length);
    const expected = [...shipped, 'package.json', 'package-lock.json', 'node_modules'];
    expect([...created].sort()).toEqual([...expected].sort());
    // Sources from the build context exist (the compose test checks they are in the context).
    for (const instruction of image.instructions.filter((entry) => entry.keyword === 'COPY')) {
      const { fromStage, sources } = copied(instruction.args);
      if (fromStage) continue;
      for (const source of sources)
        expect({ source, exists: existsSync(path.join(ROOT, source)) }).toEqual({ source, exists: true });
    }
  });

  test('its command runs the worker, as an unprivileged user, from /app', () => {
    const last = (keyword: string): string | undefined =>
      image.instructions.filter((instruction) => instruction.keyword === keyword).at(-1)?.args;
    expect(last('WORKDIR')).toBe('/app');
    expect(last('USER')).toBe('node');
    expect(last('ENTRYPOINT')).toBeUndefined();
    const command = JSON.parse(last('CMD') ?? '[]') as string[];
    expect(command).toEqual(['node', 'dist/worker/main.js']);
    // dist/worker/main.js is compiled from worker/main.ts, which runs the worker when it is the
    // main module (the package test starts it that way from an installed copy).
    expect(shipped).toContain('dist');
    expect((JSON.parse(read('tsconfig.build.json')) as { include: string[] }).include).toContain('worker');
    const main = read('worker/main.ts');
    expect(main).toMatch(/if \(require\.main === module\) \{\s*runWorkerProcess\(\)/);
    expect(main).toContain('createTidelineWorker');
  });
});

describe('scripts/tools-dir.js: where built tools live', () => {
  const HOME = '/home/someone';

  test('TIDELINE_TOOLS_DIR wins', () => {
    expect(toolsDir(ROOT, { TIDELINE_TOOLS_DIR: '/opt/tideline-tools', HOME })).toBe('/opt/tideline-tools');
  });

  test('.tools of a writable checkout', () => {
    expect(isWritableCheckout(ROOT)).toBe(true);
    expect(toolsDir(ROOT, { HOME })).toBe(path.join(ROOT, '.tools'));
  });

  test('the per-user cache for an installed package (under node_modules)', () => {
    const installed = path.join(ROOT, 'node_modules', 'typescript');
    expect(isWritableCheckout(installed)).toBe(false);
    expect(toolsDir(installed, { HOME })).toBe(path.join(HOME, '.cache', 'tideline'));
    expect(toolsDir(installed, { HOME, XDG_CACHE_HOME: '/var/cache/me' })).toBe('/var/cache/me/tideline');
    // A relative XDG_CACHE_HOME is invalid by the XDG spec and ignored.
    expect(userCacheDir({ HOME, XDG_CACHE_HOME: 'cache' })).toBe(path.join(HOME, '.cache', 'tideline'));
  });

  test('scripts/setup-temporal.js looks for and builds the Temporal CLI there', () => {
    const installed = path.join(ROOT, 'node_modules', 'typescript');
    expect(toolsPaths(installed, { HOME }).binary).toBe(
      path.join(HOME, '.cache', 'tideline', 'bin', 'temporal'),
    );
    expect(toolsPaths(ROOT, { HOME }).binary).toBe(path.join(ROOT, '.tools', 'bin', 'temporal'));
  });
});
