// What a rehearsal's cloud starts with: the resources the run's steps name through its inputs —
// an input a step passes whole as `project_id`, `vpc_id` or `service_id` — read from the real
// cloud for their names and shapes (never a secret), and the inputs rewritten to name the
// rehearsal cloud's copies (`${{ cloud.project_id }}`, `${{ cloud.vpcs.NAME.id }}`, …).
import type { RunbookDefinition } from '../dsl/definition';
import { stepTree } from '../dsl/step-tree';

/** What a resource id input names, by the field a step passes it as. */
const ROLES = { project_id: 'project', vpc_id: 'vpc', service_id: 'service' } as const;
type Role = (typeof ROLES)[keyof typeof ROLES];

/** Reads a resource of the real cloud: `vpc.get` or `service.get`, answered as the API answers. */
export type ResourceReader = (
  projectId: string,
  action: 'vpc.get' | 'service.get',
  id: string,
) => Promise<Record<string, unknown>>;

export interface RehearsalSeed {
  inputs: Record<string, unknown>;
  cloud: {
    vpcs: { name: string; cidr?: string }[];
    services: {
      name: string;
      status: 'READY' | 'PAUSED';
      cpu_millis?: string;
      environment?: 'DEV' | 'PROD';
    }[];
  };
}

const WHOLE_INPUT = /^\$\{\{\s*inputs\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** The inputs the steps pass whole as a resource id, and which kind of resource each names. */
export function resourceInputs(definition: RunbookDefinition): Map<string, Role> {
  const roles = new Map<string, Role>();
  const placed = stepTree(definition.steps, {
    branches: true,
    foreach: true,
    compensate: true,
  });
  for (const { step } of placed) {
    const args = 'with' in step ? (step.with as Record<string, unknown>) : undefined;
    for (const [field, role] of Object.entries(ROLES)) {
      const value = args?.[field];
      const input = typeof value === 'string' ? WHOLE_INPUT.exec(value)?.[1] : undefined;
      if (input !== undefined && !roles.has(input)) roles.set(input, role);
    }
  }
  return roles;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The rehearsal's starting resources and inputs; throws when a resource cannot be read. */
export async function rehearsalSeed(
  definition: RunbookDefinition,
  inputs: Record<string, unknown>,
  read: ResourceReader,
): Promise<RehearsalSeed> {
  const roles = resourceInputs(definition);
  const seed: RehearsalSeed = { inputs: { ...inputs }, cloud: { vpcs: [], services: [] } };
  const projectInput = [...roles].find(([name, role]) => role === 'project' && text(inputs[name]))?.[0];
  const projectId = projectInput === undefined ? undefined : text(inputs[projectInput]);
  for (const [name, role] of roles) {
    const id = text(inputs[name]);
    if (id === undefined) continue;
    if (role === 'project') {
      seed.inputs[name] = '${{ cloud.project_id }}';
      continue;
    }
    if (projectId === undefined) throw new Error(`no project input to read ${role} ${id} in`);
    if (role === 'vpc') {
      const vpc = await read(projectId, 'vpc.get', id);
      const vpcName = text(vpc.name) ?? name.replace(/_/g, '-');
      if (!seed.cloud.vpcs.some((known) => known.name === vpcName))
        seed.cloud.vpcs.push({
          name: vpcName,
          ...(text(vpc.cidr) !== undefined && { cidr: text(vpc.cidr) }),
        });
      seed.inputs[name] = `\${{ cloud.vpcs.${vpcName}.id }}`;
    } else {
      const service = await read(projectId, 'service.get', id);
      const serviceName = text(service.name) ?? name.replace(/_/g, '-');
      const cpu = (service.resources as { spec?: { cpu_millis?: unknown } }[] | undefined)?.[0]?.spec
        ?.cpu_millis;
      const environment = text(
        service.metadata && (service.metadata as { environment?: unknown }).environment,
      );
      if (!seed.cloud.services.some((known) => known.name === serviceName))
        seed.cloud.services.push({
          name: serviceName,
          status: service.status === 'PAUSED' ? 'PAUSED' : 'READY',
          ...(cpu !== undefined && { cpu_millis: String(cpu) }),
          ...((environment === 'DEV' || environment === 'PROD') && { environment }),
        });
      seed.inputs[name] = `\${{ cloud.services.${serviceName}.id }}`;
    }
  }
  return seed;
}
