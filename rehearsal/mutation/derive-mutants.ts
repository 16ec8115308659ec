// A runbook's mutants: its YAML document with one mutation applied (mutation-sites.ts), each
// walked to through the step tree as written and loaded again by the runbook loader, so a mutant
// is a runbook that validates — the kind of wrong runbook that could be shipped. Mutants that the
// loader refuses, that normalise to the runbook itself or to a mutant already made, are left out.
import { parseDocument, type Document } from 'yaml';
import type { RunbookDefinition } from '../../dsl/definition';
import { checkRunbookText } from '../../dsl/loader';
import type { Step } from '../../dsl/schema';
import { placedList, walkSteps } from '../../dsl/step-tree';
import { mutantDiff, type MutantDiff } from './mutant-diff';
import {
  commonSites,
  kindSites,
  mutantId,
  type DocumentEdit,
  type MutationOperator,
  type MutationSite,
} from './mutation-sites';

export interface Mutant {
  /** Stable across runs: the mutation's operator, step, field and new value. */
  id: string;
  operator: MutationOperator;
  stepId: string;
  diff: MutantDiff;
  definition: RunbookDefinition;
}

export interface Derivation {
  mutants: Mutant[];
  /** Mutations every variant of which the loader refused. */
  refused: number;
}

const WRITE_OPTIONS = { lineWidth: 0 } as const;

function applied(document: Document, edits: readonly DocumentEdit[]): string {
  const copy = document.clone();
  for (const edit of edits) {
    if ('remove' in edit) copy.deleteIn(edit.path);
    else copy.setIn(edit.path, edit.value);
  }
  return copy.toString(WRITE_OPTIONS);
}

/** Every mutation site of the runbook's steps, in document order. */
function sitesOf(definition: RunbookDefinition, steps: Step[]): MutationSite[] {
  const sites: MutationSite[] = [];
  walkSteps(placedList(steps, ['steps']), [], (placed) => {
    const context = {
      path: placed.path,
      compensating: placed.frames.some((frame) => frame.type === 'compensate'),
      inputs: definition.inputs,
    };
    sites.push(...commonSites(placed.step, placed.path), ...kindSites(placed.kind)(placed.step, context));
  });
  return sites;
}

/**
 * The mutants of the runbook whose text is given; `path` is where it is (child runbooks are read
 * relative to it). Undefined when the runbook itself does not load.
 */
export function deriveMutants(text: string, path: string): Derivation | undefined {
  const original = checkRunbookText(text, path).definition;
  if (original === undefined) return undefined;
  const document = parseDocument(text);
  const steps = (document.toJS() as { steps: Step[] }).steps;
  const originalText = document.toString(WRITE_OPTIONS);
  const seen = new Set([JSON.stringify(original)]);
  const mutants: Mutant[] = [];
  let refused = 0;
  for (const site of sitesOf(original, steps)) {
    let made = false;
    for (const variant of site.variants) {
      const mutated = applied(document, variant.edits);
      const definition = checkRunbookText(mutated, path).definition;
      if (definition === undefined) continue;
      made = true;
      const key = JSON.stringify(definition);
      if (seen.has(key)) break;
      seen.add(key);
      mutants.push({
        id: mutantId(site, variant),
        operator: site.operator,
        stepId: site.stepId,
        diff: mutantDiff(originalText, mutated),
        definition,
      });
      break;
    }
    if (!made) refused++;
  }
  return { mutants, refused };
}
