// What a step's resources say in a report: "created service X", and what became of what a
// compensated step created ("deleted by compensation (create/undo.delete_service)"). Shared by
// `tideline history` (a note per step) and the report of a finished run (`status`, `run`).
import type { StepRecord, StepResource } from '../../contract/run-messages';

const RESOURCE_NAMES: Record<StepResource['type'], string> = {
  service: 'service',
  vpc: 'VPC',
  peering: 'peering',
  'replica-set': 'replica set',
};

/** "created service X", "service Y": what the step made or acted on (ids only, never secrets). */
export function resourcesNote(step: StepRecord): string | undefined {
  const resources = step.resources ?? [];
  if (resources.length === 0) return undefined;
  return resources.map((r) => `${r.created ? 'created ' : ''}${RESOURCE_NAMES[r.type]} ${r.id}`).join(', ');
}

/**
 * What became of what a compensated step created: "deleted by compensation (create/undo.delete)"
 * when an undo step deleted it, else which undo steps failed or ran.
 */
export function compensationNote(step: StepRecord, undos: readonly StepRecord[]): string | undefined {
  const created = (step.resources ?? []).filter((r) => r.created);
  // Without something created the undo steps listed under the step say it all.
  if (undos.length === 0 || created.length === 0) return undefined;
  const deleted = undos.find(
    (undo) =>
      undo.status === 'done' &&
      undo.action?.endsWith('.delete') === true &&
      created.some((c) => undo.resources?.some((r) => r.type === c.type && r.id === c.id)),
  );
  if (deleted !== undefined) return `deleted by compensation (${deleted.key})`;
  const failed = undos.filter((undo) => undo.status === 'failed');
  if (failed.length > 0) return `compensation failed at ${failed.map((u) => u.key).join(', ')}`;
  return `undone by ${undos.map((u) => u.key).join(', ')}`;
}

/** "created service X, created VPC Y": only what the step created, for a report's leftovers. */
export function createdNote(step: StepRecord): string | undefined {
  return resourcesNote({ ...step, resources: (step.resources ?? []).filter((r) => r.created) });
}

/**
 * For a report: per undone step that created something, what it created and what became of it,
 * e.g. `create: created service X · deleted by compensation (create/undo.delete_service)`.
 */
export function compensatedResourceLines(steps: readonly StepRecord[]): string[] {
  const lines: string[] = [];
  for (const step of steps) {
    const what = step.status === 'compensated' ? createdNote(step) : undefined;
    if (what === undefined) continue;
    const fate = compensationNote(
      step,
      steps.filter((undo) => undo.compensates === step.key),
    );
    lines.push(`${step.key}: ${what}${fate === undefined ? '' : ` · ${fate}`}`);
  }
  return lines;
}
