// The services a foreach over `targets` would run over. Without a server the plan shows the
// selector (values from inputs filled in); `tideline plan --resolve-targets` lists each selector's
// project with `service.list` (read-only) and filters the answer with the very expression the run
// evaluates (the foreach's `items`, dsl/targets-filter.ts), so what the plan lists is what a run
// started now would touch.
import type { TargetsDefinition } from '../../dsl/definition';
import { expressionReferences } from '../../dsl/expression-references';
import { evaluateExpression, type JsonValue } from '../../dsl/expressions';
import { hasTemplate } from '../../dsl/templates';
import type { PartialResolver } from './partial-resolver';
import { planTree } from './plan-tree';
import type { Plan, PlanStep, PlanTarget, PlanTargets } from './plan-types';

export type { PlanTarget, PlanTargets } from './plan-types';

/** The plan's view of a selector: values from known inputs filled in. */
export function planTargets(targets: TargetsDefinition, resolver: PartialResolver): PlanTargets {
  const { listStepId, ...selector } = targets;
  return { selector: resolver.value(selector as JsonValue) as PlanTargets['selector'], listStepId };
}

const RUN_TIME_ONLY = 'the selector depends on values known only at run time';

/** Lists a project's services (the Cloud API's `service.list`, read-only). */
export type ServiceLister = (projectId: string) => Promise<JsonValue[]>;

const text = (value: JsonValue | undefined): string => (typeof value === 'string' ? value : '');

function planTarget(service: JsonValue): PlanTarget {
  const record = service !== null && typeof service === 'object' && !Array.isArray(service) ? service : {};
  const metadata = record.metadata;
  const environment =
    metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)
      ? text(metadata.environment)
      : '';
  return {
    service_id: text(record.service_id),
    name: text(record.name),
    environment,
    status: text(record.status),
    region: text(record.region_code),
  };
}

/** Names the generated filter uses (dsl/targets-filter.ts): its own bindings, `cel.bind`, `list`. */
const OWN_NAMES = /^(?:cel|list|tideline_\w+)$/;

/** Whether the foreach's filter reads only known inputs and its own list step. */
function resolvable(items: string, listStepId: string, known: Record<string, JsonValue>): boolean {
  try {
    return expressionReferences(items).every((ref) =>
      ref.root === 'inputs'
        ? ref.path[0] !== undefined && ref.path[0] in known
        : ref.root === 'steps'
          ? ref.path[0] === listStepId
          : OWN_NAMES.test(ref.root),
    );
  } catch {
    return false;
  }
}

/**
 * Every plan step (nested ones too) that selects targets, in plan order. A child runbook's steps
 * read the child's inputs, which are known only at run time: they are left out.
 */
function targetSteps(steps: PlanStep[]): PlanStep[] {
  return planTree(steps, false)
    .map(({ step }) => step)
    .filter((step) => step.targets !== undefined);
}

/**
 * Fills in `services` (or `unresolved`) of every targets foreach of a plan. `known` holds the
 * non-secret inputs that have values. A selector that reads anything else (a step's output, a
 * loop variable, a missing or secret input), or sits in compensation or a child runbook, is left
 * unresolved, and its project is not listed.
 */
export async function resolvePlanTargets(
  plan: Plan,
  known: Record<string, JsonValue>,
  list: ServiceLister,
): Promise<void> {
  const listings = new Map<string, Promise<JsonValue[]>>();
  for (const step of targetSteps(plan.steps)) {
    const targets = step.targets!;
    const project = targets.selector.project_id;
    const items = step.items ?? '[]';
    if (hasTemplate(project) || step.key.includes('/') || !resolvable(items, targets.listStepId, known)) {
      targets.unresolved = RUN_TIME_ONLY;
      continue;
    }
    let listing = listings.get(project);
    if (listing === undefined) {
      listing = list(project);
      listings.set(project, listing);
    }
    const services = await listing;
    try {
      const scope = { inputs: known, steps: { [targets.listStepId]: { output: services, status: 'done' } } };
      const picked = evaluateExpression(items, scope);
      targets.services = (Array.isArray(picked) ? picked : []).map(planTarget);
    } catch {
      targets.unresolved = RUN_TIME_ONLY;
    }
  }
  plan.targetsResolved = true;
}
