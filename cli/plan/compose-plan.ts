// The plan `tideline plan` prints and `tideline mcp`'s tools return: the steps built from the
// bound inputs, the services each `targets` foreach selects (when asked), and the rules of the
// worker configuration's policies (when it has them), evaluated as the worker would.
import type { RunbookDefinition } from '../../dsl/definition';
import type { JsonValue } from '../../dsl/expressions';
import type { CliContext } from '../context';
import { buildPlan, knownInputs } from './build-plan';
import { planPolicies, policyInputs } from './plan-policies';
import { resolvePlanTargets } from './plan-targets';
import type { Plan } from './plan-types';
import { planWorkerConfig } from './target-lister';

export interface PlanRequest {
  definition: RunbookDefinition;
  file: string;
  bound: Record<string, JsonValue>;
  /** Required inputs not given: shown as missing. */
  missing: ReadonlySet<string>;
  /** The inputs given (the others took their defaults). */
  given: ReadonlySet<string>;
  /** List the services `targets` foreach steps select (service.list only). */
  resolveTargets: boolean;
  /** Evaluate the configuration's policies (reads the services changing steps name). */
  withPolicies: boolean;
  /** The starter the policies see. */
  starterName: string;
}

export async function composePlan(ctx: CliContext, request: PlanRequest): Promise<Plan> {
  const { definition, bound } = request;
  const missing = new Set(request.missing);
  const plan = buildPlan(definition, request.file, bound, missing, new Set(request.given));
  const worker = planWorkerConfig(ctx);
  if (request.resolveTargets)
    await resolvePlanTargets(plan, knownInputs(definition, bound, missing), worker.lister);
  const policies = request.withPolicies ? worker.governance() : undefined;
  if (policies !== undefined) {
    plan.policies = await planPolicies(plan, {
      ...policies,
      definition,
      inputs: policyInputs(definition, bound, missing),
      starterName: request.starterName,
      readTarget: worker.readTarget,
      now: Date.now(),
    });
  }
  return plan;
}
