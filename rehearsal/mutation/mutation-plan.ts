// What `tideline test --mutate` runs: for each runbook the loaded cases name, its mutants and the
// cases that must kill them (every case of the suite that runs that runbook), with the mutants
// its `.mutants.yaml` lists as equivalent. Every problem of every runbook comes back at once.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LoadedCase } from '../test-file-loader';
import { deriveMutants, type Mutant } from './derive-mutants';
import { loadEquivalents, MUTANTS_FILE_SUFFIX, type MutationProblem } from './equivalent-mutants';

export interface MutationTarget {
  /** The runbook as shown to the user. */
  runbook: string;
  cases: LoadedCase[];
  mutants: Mutant[];
  /** Mutations every variant of which the runbook loader refused (not mutants). */
  refused: number;
  /** Equivalent mutants by id, with the reason. */
  equivalent: Map<string, string>;
  /** Known survivors by id, with why no case kills them yet. */
  survivors: Map<string, string>;
}

export type MutationPlan =
  { ok: true; targets: MutationTarget[] } | { ok: false; problems: MutationProblem[] };

export function planMutation(cases: readonly LoadedCase[], cwd: string): MutationPlan {
  const display = (absolute: string) => path.relative(cwd, absolute) || absolute;
  const byRunbook = new Map<string, LoadedCase[]>();
  for (const testCase of cases) {
    const runbook = path.resolve(cwd, path.dirname(testCase.file), testCase.runbook);
    byRunbook.set(runbook, [...(byRunbook.get(runbook) ?? []), testCase]);
  }
  const targets: MutationTarget[] = [];
  const problems: MutationProblem[] = [];
  for (const [runbook, runbookCases] of byRunbook) {
    // The cases loaded it, so it loads: the loader read and checked the same file.
    const derivation = deriveMutants(readFileSync(runbook, 'utf8'), runbook);
    if (derivation === undefined) continue;
    const equivalents = loadEquivalents(runbook, new Set(derivation.mutants.map((m) => m.id)), display);
    if (!equivalents.ok) {
      problems.push(...equivalents.problems);
      continue;
    }
    targets.push({
      runbook: display(runbook),
      cases: runbookCases,
      mutants: derivation.mutants,
      refused: derivation.refused,
      equivalent: equivalents.equivalent,
      survivors: equivalents.survivors,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, targets };
}

/**
 * A `.mutants.yaml` file on its own (as `tideline validate` names it): its lists checked against
 * the mutants of the runbook beside it (`x.yaml` or `x.yml` for `x.mutants.yaml`).
 */
export function checkMutantsFile(
  absolute: string,
  display: (absolute: string) => string,
): { ok: true; listed: number } | { ok: false; problems: MutationProblem[] } {
  const stem = absolute.slice(0, -MUTANTS_FILE_SUFFIX.length);
  const runbook = [`${stem}.yaml`, `${stem}.yml`].find((candidate) => existsSync(candidate));
  const refuse = (message: string, hint: string) => ({
    ok: false as const,
    problems: [
      { code: 'MUTANTS_FILE_INVALID' as const, file: display(absolute), line: 1, column: 1, message, hint },
    ],
  });
  if (runbook === undefined)
    return refuse(
      `a list of mutants, but no runbook ${display(`${stem}.yaml`)} beside it`,
      'a runbook x.yaml keeps its mutants in x.mutants.yaml next to it',
    );
  const derivation = deriveMutants(readFileSync(runbook, 'utf8'), runbook);
  if (derivation === undefined)
    return refuse(
      `its runbook ${display(runbook)} has problems, so its mutants are unknown`,
      `run tideline validate ${display(runbook)}`,
    );
  const listed = loadEquivalents(runbook, new Set(derivation.mutants.map((m) => m.id)), display);
  if (!listed.ok) return listed;
  return { ok: true, listed: listed.equivalent.size + listed.survivors.size };
}
