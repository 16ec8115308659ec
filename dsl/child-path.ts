// Where a `runbook:` step's file is, and whether it may be read: child runbooks resolve relative
// to the file that names them and must stay inside the runbooks' tree — the root runbook's folder,
// or the folder given as `runbooksRoot` (`--runbooks-root`). Symbolic links are resolved first,
// so a link cannot lead outside either. Uses `fs` (realpath): CLI and worker only.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

export type ChildPath = { ok: true; absolute: string } | { ok: false; message: string; hint: string };

/** True when `path` is `root` or inside it (both absolute and normalised). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of a file or folder; for one that does not exist, its folder's real path. */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realPath(parent), basename(path));
  }
}

/**
 * Resolves `reference` (as written in the step) against the parent file and checks it stays in
 * `root` (absolute; a real path when `followLinks`). `followLinks: false` checks the path as
 * written only (for loaders given an in-memory file reader).
 */
export function resolveChildPath(
  parentPath: string,
  reference: string,
  root: string,
  options: { followLinks: boolean },
): ChildPath {
  const absolute = resolve(dirname(parentPath), reference);
  const outside: ChildPath = {
    ok: false,
    message: `child runbook \`${reference}\` is outside the runbooks' folder`,
    hint: `a child runbook must be inside ${root} (links are followed); to share runbooks between folders, give their common folder with --runbooks-root DIR`,
  };
  if (!isInside(root, options.followLinks ? realPath(absolute) : absolute)) return outside;
  return { ok: true, absolute };
}
