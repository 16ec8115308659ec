// Every duration a step can write is limited, read from the declarations of the step kinds: the
// fields each kind declares (`durations`) are every field of its schema that takes a duration,
// and a value over 3650d in any of them is refused at that field.
import { checkRunbookText } from '../../dsl/loader';
import type { StepKind } from '../../dsl/schema';
import { STEP_KIND_LANGUAGE } from '../../dsl/step-kinds/table';
import { COMMON_STEP_DURATIONS } from '../../dsl/validator';
import type { z } from 'zod';

/** The smallest valid step of each kind (a new kind must add one here). */
const SMALLEST: Record<StepKind, string[]> = {
  call: ['call: service.get', 'with: { project_id: p, service_id: s }'],
  wait: ['wait: service.get', 'with: { project_id: p, service_id: s }', "until: 'true'"],
  sleep: ['sleep: 1s'],
  approve: ["approve: 'Go?'"],
  assert: ["assert: 'true'"],
  parallel: ['parallel:', '  - id: a', '    steps:', '      - id: a1', '        sleep: 1s'],
  foreach: ["foreach: '${{ [1] }}'", 'as: item', 'steps:', '  - id: each', '    sleep: 1s'],
  runbook: ['runbook: ./child.yaml'],
  fail: ["fail: 'stop'"],
  watch: ['watch: service.get', 'with: { project_id: p, service_id: s }', 'for: 1m', "failIf: 'false'"],
};

/** Whether a field's schema takes durations: it accepts `1s` and `90m` but not a word. */
function takesDurations(schema: z.ZodType): boolean {
  return (
    schema.safeParse('1s').success && schema.safeParse('90m').success && !schema.safeParse('soon').success
  );
}

function runbookWith(kind: StepKind, field: string, value: string): string {
  const lines = SMALLEST[kind].filter((line) => !line.startsWith(`${field}:`));
  return [
    'apiVersion: tideline/v1',
    'name: limits',
    'description: One step with a long duration.',
    'steps:',
    '  - id: one',
    ...[...lines, `${field}: ${value}`].map((line) => `    ${line}`),
    '',
  ].join('\n');
}

const kinds = Object.keys(STEP_KIND_LANGUAGE) as StepKind[];

test.each(kinds)('%s: its declared durations are every field of its schema that takes one', (kind) => {
  const shape = STEP_KIND_LANGUAGE[kind].schema.shape as Record<string, z.ZodType>;
  const fields = Object.entries(shape)
    .filter(([name]) => name !== 'compensate')
    .filter(([, schema]) => takesDurations(schema))
    .map(([name]) => name)
    .sort();
  expect(fields).toEqual([...COMMON_STEP_DURATIONS, ...STEP_KIND_LANGUAGE[kind].durations].sort());
});

const declared = kinds.flatMap((kind) =>
  [...COMMON_STEP_DURATIONS, ...STEP_KIND_LANGUAGE[kind].durations]
    // A watch has no `timeout` (its own rule says so); its `for` and `every` are what it lasts.
    .filter((field) => !(kind === 'watch' && field === 'timeout'))
    .map((field) => [kind, field] as const),
);

test.each(declared)('%s: `%s` over 3650d is refused at the field', (kind, field) => {
  const fine = checkRunbookText(runbookWith(kind, field, '1s'), 'limits.yaml').problems;
  expect(fine.filter((p) => p.rule === 'duration')).toEqual([]);
  const problems = checkRunbookText(runbookWith(kind, field, '99999d'), 'limits.yaml').problems;
  expect(problems).toContainEqual(
    expect.objectContaining({
      rule: 'duration',
      path: ['steps', 0, field],
      message: `\`${field}\` is longer than 3650d (10 years), the longest duration a runbook may give`,
    }),
  );
});
