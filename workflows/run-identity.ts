// What identifies a run to an operator searching for it, from its bound inputs: the project it
// works in and the services it names up front (more are added as its steps name or create them),
// and the secret input values that must never be shown as either. Workflow code: pure.
import type { RunbookDefinition } from '../dsl/definition';
import type { JsonValue } from '../dsl/expressions';

export interface RunIdentity {
  /** The `project_id` input, unless it is secret. */
  project?: string;
  /** Non-secret inputs named `service_id` or `…_service_id` (or lists named `…service_ids`). */
  services: string[];
  secretValues: ReadonlySet<string>;
}

const SERVICE_INPUT = /(^|_)service_id$/;
const SERVICE_LIST_INPUT = /(^|_)service_ids$/;

export function runIdentity(definition: RunbookDefinition, values: Record<string, JsonValue>): RunIdentity {
  const secretValues = new Set<string>();
  const services: string[] = [];
  let project: string | undefined;
  for (const [name, value] of Object.entries(values)) {
    const secret = definition.inputs[name]?.secret === true;
    if (secret) {
      if (typeof value === 'string' && value !== '') secretValues.add(value);
      continue;
    }
    if (name === 'project_id' && typeof value === 'string' && value !== '') project = value;
    if (SERVICE_INPUT.test(name) && typeof value === 'string' && value !== '') services.push(value);
    if (SERVICE_LIST_INPUT.test(name) && Array.isArray(value)) {
      for (const item of value) if (typeof item === 'string' && item !== '') services.push(item);
    }
  }
  // A non-secret input that happens to equal a secret one is not shown either.
  return {
    ...(project !== undefined && !secretValues.has(project) ? { project } : {}),
    services: services.filter((id) => !secretValues.has(id)),
    secretValues,
  };
}
