import { readdirSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The documentation's pages, as repository paths: the README and every page under docs/. */
export const DOCS_PAGES: readonly string[] = [
  'README.md',
  ...readdirSync(path.join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
