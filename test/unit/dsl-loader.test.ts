// The loader: files, children relative to their parent, error codes, and all problems at once.
import { join } from 'node:path';
import { checkRunbookFile, checkRunbookText, loadRunbookFile, loadRunbookText } from '../../dsl/loader';
import { isRunbookError } from '../../dsl/problems';
import type { RunbookError } from '../../dsl/problems';

const fixtures = join('test', 'fixtures', 'runbooks');

function thrown(fn: () => unknown): RunbookError {
  try {
    fn();
  } catch (error) {
    if (isRunbookError(error)) return error;
    throw error;
  }
  throw new Error('expected a RunbookError');
}

describe('loader', () => {
  it('a missing file is RUNBOOK_NOT_FOUND, a directory RUNBOOK_UNREADABLE', () => {
    const error = thrown(() => loadRunbookFile(join(fixtures, 'nope.yaml')));
    expect(error.code).toBe('RUNBOOK_NOT_FOUND');
    expect(error.message).toContain('nope.yaml');
    const folder = thrown(() => checkRunbookFile(fixtures));
    expect(folder.code).toBe('RUNBOOK_UNREADABLE');
    expect(folder.message).toBe(`${fixtures}: is a directory, not a runbook file`);
  });

  it('an invalid runbook is RUNBOOK_INVALID with every problem, each with file:line:column', () => {
    const error = thrown(() => loadRunbookFile(join(fixtures, 'invalid', 'references.yaml')));
    expect(error.code).toBe('RUNBOOK_INVALID');
    expect(error.problems).toHaveLength(7);
    expect(error.message).toMatch(/^7 problems in the runbook:\n/);
    expect(error.message).toContain(
      `${join(fixtures, 'invalid', 'references.yaml')}:9:65: \`late\` runs later`,
    );
  });

  it('reports schema and semantic problems together', () => {
    const text = [
      'apiVersion: tideline/v1',
      'name: mixed',
      'description: One schema problem, semantic problems in the steps the schema accepts.',
      'steps:',
      '  - id: a',
      '    sleep: 5s',
      '    timeout: 5 min',
      '    if: "${{ nope }}"',
      '  - id: b',
      '    call: service.getx',
      '  - id: c',
      '    call: service.get',
      "    with: { project_id: p, service_id: '${{ steps.b.output.x }}', extra: 1 }",
      '',
    ].join('\n');
    const { problems } = checkRunbookText(text, 'mixed.yaml');
    expect(problems.map((p) => `${p.line}:${p.column} ${p.rule}`)).toEqual([
      '7:14 duration',
      '8:9 unknown-variable',
      '10:11 unknown-action',
      '13:67 action-input',
    ]);
  });

  it('reads children through the given reader, relative to the parent', () => {
    const files: Record<string, string> = {
      '/virtual/main.yaml': [
        'apiVersion: tideline/v1',
        'name: main',
        'description: Runs a child.',
        'steps:',
        '  - id: child',
        '    runbook: sub/child.yaml',
        '    with: { wait: 2s }',
        'outputs:',
        '  slept: "${{ steps.child.output.slept }}"',
        '',
      ].join('\n'),
      '/virtual/sub/child.yaml': [
        'apiVersion: tideline/v1',
        'name: child',
        'description: Sleeps.',
        'inputs:',
        '  wait: { type: duration }',
        'steps:',
        '  - id: nap',
        '    sleep: "${{ inputs.wait }}"',
        'outputs:',
        '  slept: "${{ inputs.wait }}"',
        '',
      ].join('\n'),
    };
    const read: string[] = [];
    const definition = loadRunbookFile('/virtual/main.yaml', {
      readFile: (path) => {
        read.push(path);
        return files[path];
      },
    });
    expect(read).toEqual(['/virtual/main.yaml', '/virtual/sub/child.yaml']);
    const [step] = definition.steps;
    expect(step?.kind === 'runbook' && step.runbook.name).toBe('child');
  });

  it('problems of a child carry the child file; the parent is invalid', () => {
    const { problems, definition } = checkRunbookFile(join(fixtures, 'invalid', 'child-broken.yaml'));
    expect(definition).toBeUndefined();
    expect(problems.map((p) => p.file)).toEqual([join(fixtures, 'invalid', 'unknown-action.yaml')]);
  });

  it('loads text as if it were a file and names the file in problems', () => {
    const error = thrown(() => loadRunbookText('apiVersion: tideline/v1\nname: x\n', 'where/it.yaml'));
    expect(error.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.message}`)).toEqual([
      'where/it.yaml:1:1 missing required field `description`',
      'where/it.yaml:1:1 missing required field `steps`',
    ]);
  });

  it('an empty document is one clear problem', () => {
    expect(checkRunbookText('', 'empty.yaml').problems.map((p) => p.message)).toEqual([
      '`the runbook` must be a map, not null',
    ]);
  });
});
