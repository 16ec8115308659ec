// Which resources a step that runs or reads an action acted on, and which it created: the ids in its input (the
// Cloud API's path parameters) and, for a create, the id in its answer. Kept on the step's record
// (reports: "created service X … deleted by compensation") and fed to the run's TidelineServices
// search attribute. Ids are not secrets; a value equal to a secret input is dropped all the same,
// because a runbook could route a secret through an id field and records reach the progress query
// and TidelineServices (which the payload codec does not encrypt). Workflow code: pure.
import { RESOURCE_NAMES, RESOURCES, resourceOf } from '../cloud/resources';
import type { StepDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';
import { definitionRuntime } from '../dsl/step-kinds/runtime-table';
import { resolveTemplates } from '../dsl/templates';
import type { StepResource } from '../contract/run-messages';

/**
 * Input fields that name a resource a step record lists, and how it lists it, in the order of
 * cloud/resources.ts.
 */
const ID_FIELDS: readonly (readonly [string, StepResource['type']])[] = RESOURCE_NAMES.flatMap((name) => {
  const { idField, recordType } = RESOURCES[name];
  return idField === undefined || recordType === undefined ? [] : [[idField, recordType] as const];
});

/** Longest id kept: Cloud API ids are short; anything longer is not an id worth listing. */
const MAX_ID_LENGTH = 64;

function usable(value: unknown, secrets: ReadonlySet<string>): value is string {
  return typeof value === 'string' && value !== '' && value.length <= MAX_ID_LENGTH && !secrets.has(value);
}

/** The resources named in the input of a step's action (templates resolved; unresolvable ones skipped). */
export function touchedResources(
  step: StepDefinition,
  vars: Record<string, unknown>,
  secrets: ReadonlySet<string>,
): StepResource[] {
  const runtime = definitionRuntime(step);
  const input = runtime.actionOf(step) === undefined ? undefined : runtime.withOf(step);
  if (input === undefined) return [];
  const found: StepResource[] = [];
  for (const [field, type] of ID_FIELDS) {
    const raw = input[field];
    if (raw === undefined) continue;
    let value: JsonValue;
    try {
      value = resolveTemplates(raw, vars);
    } catch {
      continue; // the step itself reports the broken expression
    }
    if (usable(value, secrets)) found.push({ type, id: value });
  }
  return found;
}

/** The resource a create call made, from its answer. */
export function createdResource(
  step: StepDefinition,
  output: JsonValue,
  secrets: ReadonlySet<string>,
): StepResource | undefined {
  if (step.kind !== 'call' || step.actionKind !== 'create') return undefined;
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return undefined;
  // What the answer holds the new resource's id in, by the action's resource.
  const resource = resourceOf(step.action);
  if (resource === undefined) return undefined;
  const { createdIdField, recordType } = RESOURCES[resource];
  if (createdIdField === undefined || recordType === undefined) return undefined;
  const id = output[createdIdField];
  return usable(id, secrets) ? { type: recordType, id, created: true } : undefined;
}

/** Adds a resource to a list unless it is there; a created one marks the listed one created. */
export function addResource(list: StepResource[], resource: StepResource): void {
  const known = list.find((r) => r.type === resource.type && r.id === resource.id);
  if (known === undefined) list.push(resource);
  else if (resource.created) known.created = true;
}
