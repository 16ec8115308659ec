// Every YAML and JSON example in README.md is checked by the validator that would read it for
// real, so the README cannot drift from the code: runbooks (and runbook fragments, placed in a
// small runbook) by the dsl loader and validator, the local cloud's config by its zod schema, the
// worker's config file by its zod schema. A block is marked by an HTML comment on the line before
// its fence:
//   <!-- example: runbook -->            a whole runbook (the default when it has `apiVersion`)
//   <!-- example: runbook-fragment -->   a list of steps, or top-level keys (inputs:, outputs:,
//                                        onFailure: …) of a runbook; see FRAGMENT_BASE
//   <!-- example: simulator-config -->   the local cloud's --config file
//   <!-- example: worker-config -->      the worker's TIDELINE_CONFIG file
//   <!-- example: partial: REASON -->    deliberately incomplete (`{ … }`, placeholders): not checked
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { checkRunbookText } from '../../dsl/loader';
import { parseConfig } from '../../simulator/config';
import { WorkerConfigSchema } from '../../worker/config-schema';

const REPO = path.resolve(__dirname, '..', '..');
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');

interface Example {
  line: number;
  lang: string;
  kind: string;
  text: string;
}

/** The fenced blocks in YAML or JSON, with the kind their marker gives (or '' when unmarked). */
function examples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const found: Example[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w*)\s*$/.exec(lines[index] ?? '');
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`README.md:${index + 1}: a code block that never closes`);
    const lang = open[1] ?? '';
    if (lang === 'yaml' || lang === 'json') {
      let before = index - 1;
      while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
      const marker = /^<!-- example: ([\w-]+)(.*)-->\s*$/.exec(lines[before] ?? '');
      found.push({
        line: index + 1,
        lang,
        kind: marker?.[1] ?? '',
        text: lines.slice(index + 1, end).join('\n'),
      });
    }
    index = end;
  }
  return found;
}

/**
 * What a fragment is placed in: the inputs and a `create` step the README's fragments read. A
 * fragment's own keys replace these (its `steps` come after `create` unless it defines `create`).
 */
const FRAGMENT_BASE = {
  apiVersion: 'tideline/v1',
  name: 'readme-example',
  description: 'A README example, placed in a runbook.',
  inputs: {
    project_id: { type: 'string' },
    name: { type: 'string' },
    dry_run: { type: 'boolean', default: false },
    password: { type: 'string', secret: true },
  },
  steps: [
    {
      id: 'create',
      call: 'service.create',
      with: { project_id: '${{ inputs.project_id }}', name: '${{ inputs.name }}' },
    },
  ],
};

function placeFragment(fragment: unknown): Record<string, unknown> {
  const own = Array.isArray(fragment) ? { steps: fragment } : (fragment as Record<string, unknown>);
  const steps = Array.isArray(own.steps) ? (own.steps as { id?: unknown }[]) : undefined;
  const merged: Record<string, unknown> = { ...FRAGMENT_BASE, ...own };
  if (steps !== undefined && !steps.some((step) => step.id === 'create'))
    merged.steps = [...FRAGMENT_BASE.steps, ...steps];
  return merged;
}

/** The problems of a runbook, as `line:column: message` (empty when it is valid). */
function runbookProblems(text: string): string[] {
  // As if it sat in runbooks/, so child runbooks (`./rotate-password.yaml`) resolve to shipped ones.
  const check = checkRunbookText(text, path.join(REPO, 'runbooks', 'readme-example.yaml'));
  return check.problems.map((p) => `${p.line ?? '?'}:${p.column ?? '?'}: ${p.message}`);
}

function problemsOf(example: Example): string[] {
  const value: unknown = example.lang === 'json' ? JSON.parse(example.text) : parse(example.text);
  switch (example.kind) {
    case 'runbook':
      return runbookProblems(example.text);
    case 'runbook-fragment':
      return runbookProblems(stringify(placeFragment(value)));
    case 'simulator-config':
      try {
        parseConfig(value, 'README');
        return [];
      } catch (error) {
        return [error instanceof Error ? error.message : String(error)];
      }
    case 'worker-config': {
      const parsed = WorkerConfigSchema.safeParse(value);
      return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    }
    default:
      return [`unknown kind "${example.kind}"`];
  }
}

const all = examples(README);
const checked = all
  .map((example) => ({
    ...example,
    kind: example.kind === '' && /^apiVersion: tideline\/v1$/m.test(example.text) ? 'runbook' : example.kind,
  }))
  .filter((example) => example.kind !== 'partial');

test('README.md has examples, and every YAML/JSON block says what it is', () => {
  expect(checked.length).toBeGreaterThanOrEqual(6);
  const unmarked = checked
    .filter((example) => example.kind === '')
    .map(
      (example) =>
        `README.md:${example.line}: mark it, e.g. <!-- example: runbook-fragment --> (see this test)`,
    );
  expect(unmarked).toEqual([]);
});

test.each(
  checked
    .filter((example) => example.kind !== '')
    .map((example) => [example.line, example.kind, example] as const),
)('README.md:%i (%s) is valid', (_line, _kind, example) => {
  expect(problemsOf(example)).toEqual([]);
});

test('a partial block says why it is not checked', () => {
  const lines = README.split('\n');
  for (const example of all.filter((e) => e.kind === 'partial')) {
    const marker =
      lines
        .slice(0, example.line - 1)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    expect(marker).toMatch(/^<!-- example: partial: \S.*-->$/);
  }
});

test('the checker catches what it is there for', () => {
  expect(
    runbookProblems(stringify(placeFragment([{ id: 'x', foreach: '${{ steps.list.output }}', steps: [] }]))),
  ).not.toEqual([]);
  expect(
    problemsOf({
      line: 0,
      lang: 'yaml',
      kind: 'simulator-config',
      text: 'projects: [{ access_key: A, secret_key: S }]',
    }),
  ).not.toEqual([]);
});
