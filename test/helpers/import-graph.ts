// The imports of source files, read with TypeScript's parser (not run): static `import … from`,
// `export … from`, `import x = require(…)`, `require(…)`, `import(…)`, type imports
// (`typeof import(…)`) and the module paths given to `jest.mock` and its kin. Each import says
// whether it brings types only, so that rules can treat `import type` apart.
import path from 'node:path';
import ts from 'typescript';

/** A file of the tree: its path relative to the root (with `/`), and its text. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

export interface ImportSite {
  /** The importing file, relative to the root. */
  readonly file: string;
  /** 1-based line of the import. */
  readonly line: number;
  /** The module specifier as written. */
  readonly specifier: string;
  /** Whether only types come through it (erased from the JavaScript). */
  readonly typeOnly: boolean;
}

/** Calls whose first argument names a module that the file loads or replaces. */
const MODULE_NAMING_CALLS = new Set([
  'require',
  'jest.mock',
  'jest.doMock',
  'jest.unmock',
  'jest.requireActual',
  'jest.requireMock',
]);

function scriptKind(file: string): ts.ScriptKind {
  return /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

function calleeName(expression: ts.Expression): string | undefined {
  if (ts.isIdentifier(expression)) return expression.text;
  if (ts.isPropertyAccessExpression(expression) && ts.isIdentifier(expression.expression))
    return `${expression.expression.text}.${expression.name.text}`;
  return undefined;
}

function namedImportsAllTypes(clause: ts.ImportClause): boolean {
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function exportsAllTypes(declaration: ts.ExportDeclaration): boolean {
  const clause = declaration.exportClause;
  return (
    declaration.isTypeOnly ||
    (clause !== undefined &&
      ts.isNamedExports(clause) &&
      clause.elements.length > 0 &&
      clause.elements.every((element) => element.isTypeOnly))
  );
}

/** What a node imports, if it is an import: the specifier node and whether it is type-only. */
function importOf(node: ts.Node): { specifier: ts.StringLiteralLike; typeOnly: boolean } | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier)) {
    const clause = node.importClause;
    const typeOnly = clause !== undefined && (clause.isTypeOnly || namedImportsAllTypes(clause));
    return { specifier: node.moduleSpecifier, typeOnly };
  }
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteralLike(node.moduleSpecifier))
    return { specifier: node.moduleSpecifier, typeOnly: exportsAllTypes(node) };
  if (
    ts.isImportEqualsDeclaration(node) &&
    ts.isExternalModuleReference(node.moduleReference) &&
    ts.isStringLiteralLike(node.moduleReference.expression)
  )
    return { specifier: node.moduleReference.expression, typeOnly: node.isTypeOnly };
  if (ts.isImportTypeNode(node)) {
    const argument = node.argument;
    if (ts.isLiteralTypeNode(argument) && ts.isStringLiteralLike(argument.literal))
      return { specifier: argument.literal, typeOnly: true };
  }
  if (ts.isCallExpression(node)) {
    const first = node.arguments[0];
    if (first === undefined || !ts.isStringLiteralLike(first)) return undefined;
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return { specifier: first, typeOnly: false };
    const name = calleeName(node.expression);
    if (name !== undefined && MODULE_NAMING_CALLS.has(name)) return { specifier: first, typeOnly: false };
  }
  return undefined;
}

/** Each file parsed once, however many rules read its imports. */
const parsed = new WeakMap<SourceFile, readonly ImportSite[]>();

/** Every import of a file, in the order written. */
export function importsOf(file: SourceFile): readonly ImportSite[] {
  const known = parsed.get(file);
  if (known) return known;
  const source = ts.createSourceFile(
    file.path,
    file.text,
    ts.ScriptTarget.Latest,
    true,
    scriptKind(file.path),
  );
  const sites: ImportSite[] = [];
  const visit = (node: ts.Node): void => {
    const found = importOf(node);
    if (found) {
      const { line } = source.getLineAndCharacterOfPosition(found.specifier.getStart(source));
      sites.push({
        file: file.path,
        line: line + 1,
        specifier: found.specifier.text,
        typeOnly: found.typeOnly,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(file, sites);
  return sites;
}

export function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

const RESOLVE_SUFFIXES = ['', '.ts', '.js', '.mjs', '.cjs', '.d.ts', '/index.ts', '/index.js'];

/**
 * The root-relative path a relative specifier points to: the file of `known` it names (as Node or
 * TypeScript would find it), or the joined path itself when no known file matches (a JSON file, a
 * folder). `posix` paths throughout, so that results do not depend on the platform.
 */
export function resolveRelative(from: string, specifier: string, known: ReadonlySet<string>): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  for (const suffix of RESOLVE_SUFFIXES) if (known.has(joined + suffix)) return joined + suffix;
  return joined;
}
