// Where in the test file a mismatch's expectation is: its `what` (`calls.service.delete`,
// `cloud.services.shop.password`, `whenHeld[0]`) read back as a path through the case as written.
// Keys may hold dots (operations, step keys), so each level takes the longest key that fits; a
// part the case does not name (a leftover of `nothingElse`) stops at the nearest one it does.
import type { Mismatch } from './expectations';
import type { LoadedCase } from './test-file-loader';

export function pathOfWhat(what: string, root: unknown): (string | number)[] {
  const path: (string | number)[] = [];
  let rest = what;
  let node = root;
  while (rest.length > 0) {
    const index = /^\[(\d+)\]\.?/.exec(rest);
    if (index !== null && Array.isArray(node)) {
      const at = Number(index[1]);
      path.push(at);
      node = (node as unknown[])[at];
      rest = rest.slice(index[0].length);
      continue;
    }
    if (node === null || typeof node !== 'object' || Array.isArray(node)) break;
    const key = Object.keys(node)
      .filter((k) => rest === k || rest.startsWith(`${k}.`) || rest.startsWith(`${k}[`))
      .sort((a, b) => b.length - a.length)[0];
    if (key === undefined) break;
    path.push(key);
    node = (node as Record<string, unknown>)[key];
    rest = rest.slice(key.length).replace(/^\./, '');
  }
  return path;
}

/** The mismatch with its place: `what` read from the case's `expect`, or from the whole case. */
export function placeMismatch(
  testCase: Pick<LoadedCase, 'locate'> & { readonly expect?: unknown },
  mismatch: Mismatch,
  from: 'expect' | 'case',
): Mismatch {
  const path =
    from === 'expect'
      ? ['expect', ...pathOfWhat(mismatch.what, testCase.expect)]
      : pathOfWhat(mismatch.what, testCase);
  return { ...mismatch, at: testCase.locate(path) };
}
