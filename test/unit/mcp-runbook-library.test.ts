// The runbooks an MCP server offers (mcp/runbook-library.ts): a folder's, or the worker
// catalogue's entries relative to the configuration's folder; each read again when used, so an
// edited file gives a new definition hash, and one that stops validating is refused, not served.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpToolError } from '../../mcp/errors';
import { RunbookLibrary } from '../../mcp/runbook-library';
import { thrownBy } from '../helpers/thrown';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');
let dir = '';

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-mcp-library-'));
  copyFileSync(path.join(RUNBOOKS, 'enable-ha.yaml'), path.join(dir, 'enable-ha.yaml'));
  copyFileSync(path.join(RUNBOOKS, 'enable-ha.test.yaml'), path.join(dir, 'enable-ha.test.yaml'));
  writeFileSync(path.join(dir, 'broken.yaml'), 'apiVersion: tideline/v1\nname: broken\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a folder offers its valid runbooks by name (not test files), and says which it left out', () => {
  const library = RunbookLibrary.ofFolder(dir);
  expect(library.names()).toEqual(['enable-ha']);
  expect(library.problems).toEqual([expect.stringContaining('broken.yaml')]);
  expect(library.load('enable-ha')).toMatchObject({ name: 'enable-ha', file: 'enable-ha.yaml' });
  const unknown = thrownBy(() => library.load('broken')) as McpToolError;
  expect(unknown).toMatchObject({ code: 'MCP_RUNBOOK_UNKNOWN' });
  expect(unknown.detail).toContain('offered: enable-ha');
});

test('reads the file again at each use: an edit changes the hash, a broken file is refused', () => {
  const library = RunbookLibrary.ofCatalogue(
    [{ name: 'enable-ha', file: 'enable-ha.yaml', hash: 'pinned' }],
    dir,
  );
  const before = library.load('enable-ha').hash;
  const file = path.join(dir, 'enable-ha.yaml');
  const text = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    text.replace('description: >-\n', 'description: >-\n  Edited since the server started.\n'),
  );
  expect(library.load('enable-ha').hash).not.toBe(before);
  writeFileSync(file, 'apiVersion: tideline/v1\nname: enable-ha\n');
  expect(thrownBy(() => library.load('enable-ha'))).toMatchObject({ code: 'MCP_RUNBOOK_INVALID' });
  expect(library.list()).toEqual([]);
});
