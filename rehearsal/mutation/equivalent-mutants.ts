// The mutants a runbook's cases cannot tell apart from it, and why: `<runbook>.mutants.yaml` beside
// the runbook (`runbooks/rotate-password.mutants.yaml` for `runbooks/rotate-password.yaml`).
// `equivalent` lists mutants that behave as the runbook does; `survivors` lists known survivors,
// mutants no case kills yet, each with what killing it would take (a listed survivor that a case
// kills is reported, so its entry can go). Each entry names a mutant
// by its id (stable: it names the mutation). An entry whose id no mutant of the runbook has any
// more is a problem, at its file:line:column, so the lists cannot go stale as the runbook changes.
import { problemsOf } from '../../dsl/yaml-document';
import { existsSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { PositionIndex } from '../../dsl/positions';
import { readSourceFile } from '../../dsl/source-file';
import { suggestionHint } from '../../dsl/suggest';

export const MUTANTS_FILE_SUFFIX = '.mutants.yaml';

export type MutationProblemCode = 'MUTANTS_FILE_INVALID' | 'MUTANT_UNKNOWN';

export interface MutationProblem {
  code: MutationProblemCode;
  file: string;
  line: number;
  column: number;
  message: string;
  hint?: string;
}

const Entry = z.strictObject({
  mutant: z.string().min(1).describe('The id `tideline test --mutate` shows for the mutant'),
  reason: z.string().min(10).describe('Why no case tells the mutant apart from the runbook'),
});

const MutantsFile = z.strictObject({
  equivalent: z.array(Entry).default([]).describe('Mutants that behave as the runbook does'),
  survivors: z
    .array(Entry)
    .default([])
    .describe('Known survivors: mutants no case kills yet, each with what it would take'),
});

/** Where a runbook's equivalent mutants are listed. */
export function mutantsFileOf(runbookPath: string): string {
  return runbookPath.replace(/\.ya?ml$/, '') + MUTANTS_FILE_SUFFIX;
}

export interface ListedMutants {
  /** Equivalent mutants by id, with the reason. */
  equivalent: Map<string, string>;
  /** Known survivors by id, with why no case kills them yet. */
  survivors: Map<string, string>;
}

export type EquivalentsCheck = ({ ok: true } & ListedMutants) | { ok: false; problems: MutationProblem[] };

/**
 * The runbook's equivalent mutants and known survivors (id → reason), checked against the ids of the mutants it has;
 * none when it has no such file.
 */
export function loadEquivalents(
  runbookPath: string,
  mutantIds: ReadonlySet<string>,
  display: (absolute: string) => string,
): EquivalentsCheck {
  const absolute = mutantsFileOf(runbookPath);
  if (!existsSync(absolute)) return { ok: true, equivalent: new Map(), survivors: new Map() };
  const file = display(absolute);
  const problem = problemsOf<MutationProblemCode>(file);
  const read = readSourceFile(absolute, 'mutants file');
  if (read.kind !== 'text')
    return { ok: false, problems: [problem('MUTANTS_FILE_INVALID', `mutants file ${read.kind}`)] };
  const lines = new LineCounter();
  const document = parseDocument(read.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0)
    return {
      ok: false,
      problems: document.errors.map((error) => {
        const { line, col } = lines.linePos(error.pos[0]);
        return problem('MUTANTS_FILE_INVALID', `YAML: ${error.message.split('\n')[0] ?? ''}`, {
          line,
          column: col,
        });
      }),
    };
  const positions = new PositionIndex(document, lines);
  const parsed = MutantsFile.safeParse(document.toJS() ?? {});
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
        return problem(
          'MUTANTS_FILE_INVALID',
          `${path.join('.')}: ${issue.message}`,
          positions.locate(path, 'value'),
        );
      }),
    };
  const problems: MutationProblem[] = [];
  const listed: ListedMutants = { equivalent: new Map(), survivors: new Map() };
  for (const section of ['equivalent', 'survivors'] as const) {
    parsed.data[section].forEach((entry, index) => {
      if (!mutantIds.has(entry.mutant))
        problems.push(
          problem(
            'MUTANT_UNKNOWN',
            `${section}[${index}]: the runbook has no mutant "${entry.mutant}" (any more)`,
            positions.locate([section, index, 'mutant'], 'value'),
            suggestionHint(entry.mutant, [...mutantIds], 'its mutants'),
          ),
        );
      else listed[section].set(entry.mutant, entry.reason);
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, ...listed };
}
