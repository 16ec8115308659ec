// What a runbook reads of one step's output: every `steps.<id>.output.<field>…` path its
// expressions name (bare CEL fields and `${{ … }}` templates, child runbooks excluded: they have
// their own scope). Used to refuse a `skip` whose stand-in output lacks a field a later step
// reads. Pure and deterministic: runs inside the workflow sandbox.
import type { RunbookDefinition } from './definition';
import type { JsonValue } from './expressions';
import { expressionReferences } from './expression-references';
import { findTemplates } from './templates';

/** Fields of a normalised definition that hold bare CEL (the rest may hold `${{ … }}`). */
const BARE_CEL = new Set(['if', 'until', 'failIf', 'condition', 'items']);

/** Calls `visit` with every CEL expression of a runbook's steps and outputs (bare and `${{ … }}`). */
export function forEachDefinitionExpression(
  definition: Pick<RunbookDefinition, 'steps' | 'outputs'>,
  visit: (expression: string) => void,
): void {
  const walk = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      if (key !== undefined && BARE_CEL.has(key)) visit(value);
      else for (const found of findTemplates(value).expressions) visit(found.expression);
    } else if (Array.isArray(value)) {
      for (const inner of value) walk(inner, undefined);
    } else if (value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        // A child runbook's definition reads its own scope; its `with` is walked as usual.
        if (name === 'runbook' && typeof inner === 'object') continue;
        walk(inner, name);
      }
    }
  };
  walk(definition.steps, undefined);
  walk(definition.outputs, undefined);
}

/** The field paths read below `steps.<stepId>.output` (empty path: the output as a whole). */
export function outputReads(definition: RunbookDefinition, stepId: string): string[][] {
  const reads: string[][] = [];
  forEachDefinitionExpression(definition, (expression) => {
    for (const ref of expressionReferences(expression)) {
      if (ref.root === 'steps' && ref.path[0] === stepId && ref.path[1] === 'output') {
        reads.push(ref.path.slice(2));
      }
    }
  });
  return reads;
}

export function missingOutputField(output: JsonValue, reads: string[][]): string | undefined {
  for (const path of reads) {
    let current: JsonValue | undefined = output;
    for (const [index, field] of path.entries()) {
      const next: JsonValue | undefined =
        Array.isArray(current) && /^\d+$/.test(field)
          ? current[Number(field)]
          : current !== null && typeof current === 'object' && !Array.isArray(current)
            ? current[field]
            : undefined;
      if (next === undefined) return path.slice(0, index + 1).join('.');
      current = next;
    }
  }
  return undefined;
}
