// The parts of the language the interpreter workflow uses must load inside Temporal's workflow
// sandbox: no Node built-ins, no `yaml`, no file access, anywhere in their import graph.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = join(__dirname, '..', '..');
const PURE = [
  'definition',
  'templates',
  'expressions',
  'expression-references',
  'durations',
  'normalise',
  'inputs',
  'problems',
  'patterns',
  'expression-limits',
  'step-tree',
  'expression-scope',
  'step-kinds/runtime-table',
];
const FORBIDDEN = /^(node:|fs$|path$|os$|child_process$|yaml$|undici$|@temporalio\/(?!workflow|common))/;

/** Every module a file imports at run time (type-only imports are erased), followed through local files. */
function importGraph(file: string, seen = new Map<string, string[]>()): Map<string, string[]> {
  if (seen.has(file)) return seen;
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/^import\s+(?!type\s)[^'"]*['"]([^'"]+)['"]/gm)].map(
    (m) => m[1] ?? '',
  );
  seen.set(file, specifiers);
  for (const specifier of specifiers) {
    if (specifier.startsWith('.')) importGraph(`${resolve(dirname(file), specifier)}.ts`, seen);
  }
  return seen;
}

describe('sandbox-safe language modules', () => {
  it.each(PURE)('dsl/%s imports nothing the workflow sandbox forbids', (name) => {
    const graph = importGraph(join(root, 'dsl', `${name}.ts`));
    const external = [...graph.values()].flat().filter((s) => !s.startsWith('.'));
    expect(external.filter((s) => FORBIDDEN.test(s))).toEqual([]);
    for (const specifier of external) expect(['zod', '@marcbachmann/cel-js', 're2js']).toContain(specifier);
  });

  it('the packages they load are pinned exactly (a minor bump could change a replayed evaluation)', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const loaded = new Set(
      PURE.flatMap((name) => [...importGraph(join(root, 'dsl', `${name}.ts`)).values()].flat()).filter(
        (s) => !s.startsWith('.') && !s.startsWith('@temporalio/'),
      ),
    );
    expect(loaded.size).toBeGreaterThan(0);
    for (const name of loaded) expect(`${name}@${manifest.dependencies[name]}`).toMatch(/@\d+\.\d+\.\d+$/);
  });

  it('the loader is where yaml and fs live', () => {
    const external = [...importGraph(join(root, 'dsl', 'loader.ts')).values()].flat();
    expect(external).toEqual(expect.arrayContaining(['yaml', 'node:fs']));
  });
});
