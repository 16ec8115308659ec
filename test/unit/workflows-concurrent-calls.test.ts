// Which definitions can run steps side by side, and so ask for PATCHES.concurrentCallsAsTasks at
// their start (workflows/concurrent-calls.ts); and how calls count as side by side while lanes run.
import path from 'node:path';
import { loadRunbookFile, loadRunbookText } from '../../dsl/loader';
import { hasConcurrentSteps, sideBySide } from '../../workflows/concurrent-calls';
import type { Interpreter } from '../../workflows/interpreter';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');

function steps(yaml: string) {
  const text = `apiVersion: tideline/v1\nname: t\ndescription: t\ninputs:\n  ids: { type: list }\nsteps:\n${yaml}`;
  return loadRunbookText(text, 't.yaml').steps;
}

test.each([
  ['stop-dev-services.yaml', true],
  ['start-dev-services.yaml', true],
  ['provision-production-service.yaml', false],
  ['fork-and-promote.yaml', false],
  ['rotate-password.yaml', false],
])('%s runs steps side by side: %s', (file, expected) => {
  expect(hasConcurrentSteps(loadRunbookFile(path.join(RUNBOOKS, file)).steps)).toBe(expected);
});

test('a foreach one at a time is a line of steps; one with a template limit may not be', () => {
  const loop = (concurrency: string) => `
  - id: each
    foreach: '\${{ inputs.ids }}'
    as: id
    concurrency: ${concurrency}
    steps:
      - id: look
        call: service.get
        with: { project_id: p, service_id: '\${{ id }}' }
`;
  expect(hasConcurrentSteps(steps(loop('1')))).toBe(false);
  expect(hasConcurrentSteps(steps(loop('4')))).toBe(true);
  expect(hasConcurrentSteps(steps(loop("'${{ size(inputs.ids) }}'")))).toBe(true);
});

test('a parallel with two branches, also when only a compensation holds it', () => {
  const branches = (indent: string) =>
    [
      '- id: a',
      '  steps: [{ id: x, call: service.list, with: { project_id: p } }]',
      '- id: b',
      '  steps: [{ id: y, call: service.list, with: { project_id: p } }]',
    ]
      .map((line) => `${indent}${line}`)
      .join('\n');
  expect(hasConcurrentSteps(steps(`  - id: both\n    parallel:\n${branches('      ')}\n`))).toBe(true);
  const undo = [
    '  - id: make',
    '    call: service.list',
    '    with: { project_id: p }',
    '    compensate:',
    '      - id: both',
    '        parallel:',
    branches('          '),
  ].join('\n');
  expect(hasConcurrentSteps(steps(`${undo}\n`))).toBe(true);
});

test('calls count as side by side only while two or more lanes run', async () => {
  const interpreter = { concurrentLanes: 0 } as Interpreter;
  const seen: number[] = [];
  await sideBySide(interpreter, 1, async () => void seen.push(interpreter.concurrentLanes));
  await sideBySide(interpreter, 3, async () => {
    seen.push(interpreter.concurrentLanes);
    await sideBySide(interpreter, 2, async () => void seen.push(interpreter.concurrentLanes));
  });
  await expect(
    sideBySide(interpreter, 2, async () => {
      throw new Error('lane failed');
    }),
  ).rejects.toThrow('lane failed');
  expect([...seen, interpreter.concurrentLanes]).toEqual([0, 1, 2, 0]);
});
