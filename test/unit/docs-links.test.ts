// Every relative link in README.md and docs/*.md points at a file of the repository, and a link
// with an anchor (`page.md#heading`, or `#heading` on the same page) at a heading that page has,
// so moving or renaming a page or a heading cannot leave a dead link behind.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DOCS_PAGES, REPO_ROOT } from '../helpers/docs-pages';

const REPO = REPO_ROOT;
const PAGES = DOCS_PAGES;

/** The page's text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '``');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`; repeats get `-N`. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

interface Link {
  page: string;
  line: number;
  target: string;
}

function links(page: string): Link[] {
  const found: Link[] = [];
  prose(readFileSync(path.join(REPO, page), 'utf8')).forEach((text, index) => {
    for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ page, line: index + 1, target: match[1] as string });
    }
  });
  return found;
}

const ALL = PAGES.flatMap(links);
const RELATIVE = ALL.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target));

/** What is wrong with a relative link, or null when it reaches its file and heading. */
function problem(link: Link): string | null {
  const [file = '', anchor] = link.target.split('#') as [string, string | undefined];
  const resolved =
    file === '' ? link.page : path.posix.normalize(path.posix.join(path.posix.dirname(link.page), file));
  if (resolved.startsWith('..')) return `${link.target} leaves the repository`;
  if (!existsSync(path.join(REPO, resolved))) return `${link.target}: ${resolved} does not exist`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md')) return null;
  const known = anchors(readFileSync(path.join(REPO, resolved), 'utf8'));
  return known.has(decodeURIComponent(anchor))
    ? null
    : `${link.target}: ${resolved} has no heading #${anchor}`;
}

test('the README links to every page under docs/', () => {
  const linked = new Set(
    RELATIVE.filter((link) => link.page === 'README.md').map((link) => link.target.split('#')[0]),
  );
  const unlinked = PAGES.filter((page) => page !== 'README.md' && !linked.has(page));
  expect(unlinked).toEqual([]);
});

test('there are relative links to check', () => {
  expect(RELATIVE.length).toBeGreaterThanOrEqual(20);
});

test.each(RELATIVE.map((link) => [`${link.page}:${link.line}`, link.target, link] as const))(
  '%s → %s',
  (_where, _target, link) => {
    expect(problem(link)).toBeNull();
  },
);

test('the checker catches what it is there for', () => {
  const page = 'docs/cli.md';
  expect(problem({ page, line: 0, target: 'no-such-page.md' })).not.toBeNull();
  expect(problem({ page, line: 0, target: 'language.md#no-such-heading' })).not.toBeNull();
  expect(problem({ page, line: 0, target: '#schedules' })).toBeNull();
  expect(problem({ page, line: 0, target: '../README.md#quickstart' })).toBeNull();
  expect(anchors('# A (`b`): c.d\n## A (`b`): c.d')).toEqual(new Set(['a-b-cd', 'a-b-cd-1']));
});
