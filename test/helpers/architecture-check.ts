// Checks a tree's imports against the rules of test/helpers/architecture-rules.ts. Pure: it is
// given the files (path and text), so a test can feed it a made-up tree.
import { builtinModules } from 'node:module';
import {
  CLI_SHARE_KNOWN_CEILING,
  CLI_SHARE_LIMIT,
  KNOWN_EXCEPTIONS,
  NOT_COUNTED,
  ROOMS,
  SANDBOX_PACKAGES,
  TOP,
  type KnownException,
  type RoomRule,
} from './architecture-rules';
import { importsOf, isRelative, resolveRelative, type ImportSite, type SourceFile } from './import-graph';

export interface Rules {
  readonly rooms: Readonly<Record<string, RoomRule>>;
  readonly knownExceptions: readonly KnownException[];
  readonly sandboxPackages: readonly string[];
}

export const TREE_RULES: Rules = {
  rooms: ROOMS,
  knownExceptions: KNOWN_EXCEPTIONS,
  sandboxPackages: SANDBOX_PACKAGES,
};

export interface Violation {
  readonly file: string;
  /** 0 when the violation is about the whole file or the rules themselves. */
  readonly line: number;
  readonly rule: string;
  readonly message: string;
}

export function formatViolation(violation: Violation): string {
  const where = violation.line > 0 ? `${violation.file}:${violation.line}` : violation.file;
  return `${where}: ${violation.message} [${violation.rule}]`;
}

/** The room of a root-relative path: its top-level folder, or TOP for a file at the top. */
export function roomOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? TOP : file.slice(0, slash);
}

/** The rooms a room may import values from: what it stands on, and below, without itself. */
export function reachableRooms(rules: Rules, room: string): Set<string> {
  const reached = new Set<string>();
  const pending = [...(rules.rooms[room]?.standsOn ?? [])];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (reached.has(next)) continue;
    reached.add(next);
    pending.push(...(rules.rooms[next]?.standsOn ?? []));
  }
  reached.delete(room);
  return reached;
}

/** The rules table itself: every room named exists, and no room stands (even far) on itself. */
export function checkRules(rules: Rules, rulesFile: string): Violation[] {
  const violations: Violation[] = [];
  const problem = (rule: string, message: string) =>
    violations.push({ file: rulesFile, line: 0, rule, message });
  for (const [room, rule] of Object.entries(rules.rooms)) {
    for (const named of [...rule.standsOn, ...(rule.typesFrom ?? [])])
      if (!(named in rules.rooms))
        problem('rooms-exist', `${room} names ${named}, which is not a room of the table`);
    const pending = [...rule.standsOn];
    const seen = new Set<string>();
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (next === room) {
        problem('floors-acyclic', `${room} stands on itself through the rooms below it`);
        break;
      }
      if (!seen.has(next)) pending.push(...(rules.rooms[next]?.standsOn ?? []));
      seen.add(next);
    }
  }
  return violations;
}

/** An import from one room into another, the unit every rule below looks at. */
export interface CrossingImport extends ImportSite {
  readonly from: string;
  readonly to: string;
  readonly target: string;
}

/** Every relative import of the files that leaves its own room. */
export function crossingImports(files: readonly SourceFile[]): CrossingImport[] {
  const known = new Set(files.map((file) => file.path));
  const crossings: CrossingImport[] = [];
  for (const file of files)
    for (const site of importsOf(file)) {
      if (!isRelative(site.specifier)) continue;
      const target = resolveRelative(file.path, site.specifier, known);
      const from = roomOf(file.path);
      const to = known.has(target) || target.includes('/') ? roomOf(target) : target;
      if (from !== to) crossings.push({ ...site, from, to, target });
    }
  return crossings;
}

function exceptionFor(rules: Rules, crossing: CrossingImport): KnownException | undefined {
  return rules.knownExceptions.find((known) => known.file === crossing.file && known.imports === crossing.to);
}

function allowed(rules: Rules, crossing: CrossingImport): boolean {
  if (reachableRooms(rules, crossing.from).has(crossing.to)) return true;
  return crossing.typeOnly && (rules.rooms[crossing.from]?.typesFrom ?? []).includes(crossing.to);
}

function describeAllowed(rules: Rules, room: string): string {
  const reached = [...reachableRooms(rules, room)].sort();
  const types = rules.rooms[room]?.typesFrom ?? [];
  const values = reached.length > 0 ? reached.map((name) => `${name}/`).join(', ') : 'no other room';
  return types.length > 0
    ? `${values}; types only from ${types.map((name) => `${name}/`).join(', ')}`
    : values;
}

/** Files in a top-level folder the table does not know, and files outside the tree. */
export function checkRoomsKnown(rules: Rules, files: readonly SourceFile[]): Violation[] {
  const unknown = new Map<string, string>();
  for (const file of files) {
    const room = roomOf(file.path);
    if (room !== TOP && !(room in rules.rooms) && !unknown.has(room)) unknown.set(room, file.path);
  }
  return [...unknown].map(([room, file]) => ({
    file,
    line: 0,
    rule: 'room-in-table',
    message: `${room}/ is not a room of the rules table (test/helpers/architecture-rules.ts, docs/architecture.md)`,
  }));
}

/** Imports that cross a line of the table: not to a room below, nor a type-only one allowed. */
export function checkImports(rules: Rules, crossings: readonly CrossingImport[]): Violation[] {
  const violations: Violation[] = [];
  for (const crossing of crossings) {
    if (allowed(rules, crossing) || exceptionFor(rules, crossing)) continue;
    const kind = crossing.typeOnly ? 'a type-only import of' : 'an import of';
    const fromName = crossing.from === TOP ? 'a file at the top of the tree' : `${crossing.from}/`;
    const toName = crossing.to in rules.rooms ? `${crossing.to}/` : `${crossing.target} (in no room)`;
    violations.push({
      file: crossing.file,
      line: crossing.line,
      rule: 'import-floors',
      message:
        `${kind} '${crossing.specifier}': ${fromName} may not import ${toName} ` +
        `(it may import ${crossing.from in rules.rooms ? describeAllowed(rules, crossing.from) : 'no room'})`,
    });
  }
  return violations;
}

/**
 * Pairs of rooms that import each other, type-only imports included, except those the table
 * allows as types only (workflows/ taking activity types), and the named known exceptions.
 */
export function checkMutualImports(rules: Rules, crossings: readonly CrossingImport[]): Violation[] {
  const first = new Map<string, CrossingImport>();
  for (const crossing of crossings) {
    const typeAllowance =
      crossing.typeOnly && (rules.rooms[crossing.from]?.typesFrom ?? []).includes(crossing.to);
    if (typeAllowance || exceptionFor(rules, crossing)) continue;
    const key = `${crossing.from}\u0000${crossing.to}`;
    if (!first.has(key)) first.set(key, crossing);
  }
  const violations: Violation[] = [];
  for (const [key, there] of first) {
    const [from, to] = key.split('\u0000') as [string, string];
    const back = first.get(`${to}\u0000${from}`);
    if (back === undefined || from > to) continue;
    violations.push({
      file: there.file,
      line: there.line,
      rule: 'no-mutual-imports',
      message: `${from}/ and ${to}/ import each other: here '${there.specifier}', and ${back.file}:${back.line} '${back.specifier}'`,
    });
  }
  return violations;
}

/** Known exceptions that no import needs any more (the list must only hold what is real). */
export function checkExceptionsUsed(rules: Rules, crossings: readonly CrossingImport[]): Violation[] {
  return rules.knownExceptions
    .filter(
      (known) =>
        !crossings.some((crossing) => exceptionFor(rules, crossing) === known && !allowed(rules, crossing)),
    )
    .map((known) => ({
      file: known.file,
      line: 0,
      rule: 'known-exception-needed',
      message: `the known exception '${known.name}' (${known.file} importing ${known.imports}/) is no longer needed: remove it`,
    }));
}

const NODE_BUILTINS = new Set(builtinModules);

function isNodeBuiltin(specifier: string): boolean {
  return (
    specifier.startsWith('node:') ||
    NODE_BUILTINS.has(specifier) ||
    NODE_BUILTINS.has(specifier.split('/')[0] ?? '')
  );
}

/**
 * Workflow code and everything it loads (its value imports, followed through every room) imports
 * no Node built-in and no package but the sandbox's: what the workflow bundle holds stays
 * deterministic. Each violation names the chain from workflows/ that reaches it.
 */
export function checkSandbox(rules: Rules, files: readonly SourceFile[]): Violation[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const known = new Set(byPath.keys());
  const reachedFrom = new Map<string, string | null>();
  const pending = files.filter((file) => roomOf(file.path) === 'workflows').map((file) => file.path);
  for (const start of pending) reachedFrom.set(start, null);
  const violations: Violation[] = [];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const file = byPath.get(next);
    if (file === undefined) continue;
    for (const site of importsOf(file)) {
      if (site.typeOnly) continue;
      if (isRelative(site.specifier)) {
        const target = resolveRelative(file.path, site.specifier, known);
        if (known.has(target) && !reachedFrom.has(target)) {
          reachedFrom.set(target, file.path);
          pending.push(target);
        }
        continue;
      }
      const sandboxed = rules.sandboxPackages.some(
        (name) => site.specifier === name || site.specifier.startsWith(`${name}/`),
      );
      if (sandboxed && !isNodeBuiltin(site.specifier)) continue;
      const chain: string[] = [];
      for (let at: string | null | undefined = file.path; at; at = reachedFrom.get(at)) chain.unshift(at);
      violations.push({
        file: file.path,
        line: site.line,
        rule: 'sandbox-safe',
        message:
          `'${site.specifier}' is ${isNodeBuiltin(site.specifier) ? 'a Node built-in' : 'not a sandbox package'}, ` +
          `and workflow code loads this file (${chain.join(' → ')})`,
      });
    }
  }
  return violations;
}

export interface CliShare {
  readonly cliLines: number;
  readonly productLines: number;
  readonly share: number;
}

/** The CLI's share of the source lines (every room but test/). */
export function cliShare(files: readonly SourceFile[]): CliShare {
  let cliLines = 0;
  let productLines = 0;
  for (const file of files) {
    const room = roomOf(file.path);
    if (room === TOP || (NOT_COUNTED as readonly string[]).includes(room)) continue;
    const lines = file.text.split('\n').filter((line) => line.trim() !== '').length;
    productLines += lines;
    if (room === 'cli') cliLines += lines;
  }
  return { cliLines, productLines, share: productLines === 0 ? 0 : cliLines / productLines };
}

/** cli/ within its share (or within its known ceiling, which must still be needed). */
export function checkCliShare(
  measured: CliShare,
  limit: number = CLI_SHARE_LIMIT,
  knownCeiling: number | null = CLI_SHARE_KNOWN_CEILING,
): Violation[] {
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`;
  const what = `cli/ holds ${measured.cliLines} of the ${measured.productLines} non-blank source lines (${percent(measured.share)})`;
  const problem = (message: string): Violation[] => [{ file: 'cli', line: 0, rule: 'cli-share', message }];
  if (knownCeiling !== null && measured.share <= limit)
    return problem(
      `${what}, within ${percent(limit)}: the known ceiling is no longer needed; set it to null`,
    );
  const ceiling = knownCeiling ?? limit;
  if (measured.share > ceiling) return problem(`${what}, more than ${percent(ceiling)}`);
  return [];
}

/** Every rule over a tree's files: what the architecture test asserts is empty. */
export function checkTree(rules: Rules, files: readonly SourceFile[]): Violation[] {
  const crossings = crossingImports(files);
  return [
    ...checkRoomsKnown(rules, files),
    ...checkImports(rules, crossings),
    ...checkMutualImports(rules, crossings),
    ...checkExceptionsUsed(rules, crossings),
    ...checkSandbox(rules, files),
  ];
}
