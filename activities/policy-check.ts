// The worker's policies, evaluated where only the worker can: at a run's start (by `run.admit`)
// and before each changing step (the `policy.check` local activity), over the runbook and its
// hash, the bound inputs, the verified starter and their groups, the step and the resource it
// changes as the API shows it now, and the time. The rules come from the worker's configuration
// (`policies:`, `calendars:`; dsl/policies.ts), never from the run.
import type { VerifiedStarter } from '../contract/admission-messages';
import {
  noPolicyVerdict,
  type CheckStepPolicyInput,
  type PolicyRecord,
  type StepPolicyVerdict,
} from '../contract/policy-messages';
import type { JsonValue } from '../dsl/expressions';
import { evaluatePolicies, type CompiledGovernance, type PolicyDecision } from '../dsl/policies';
import type { PolicyContext } from '../dsl/policy-schema';
import { realWaitMs, systemClock, type Clock, type CloudClientResolver } from './deps';
import { CloudApiError } from '../cloud/errors';
import type { Service } from '../cloud/models';

export { CHECK_STEP_POLICY_ACTIVITY } from '../contract/policy-messages';

export function starterContext(starter: VerifiedStarter): PolicyContext['starter'] {
  return { name: starter.by ?? '', verified: starter.verified, groups: starter.groups };
}

function whole(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

/** A service as policies see it (`target`): the fields rules read, nulls for what is unknown. */
export function serviceAsTarget(serviceId: string, service: Service): NonNullable<PolicyContext['target']> {
  const spec = service.resources?.[0]?.spec;
  return {
    type: 'service',
    id: serviceId,
    name: service.name ?? null,
    environment: service.metadata?.environment ?? null,
    status: service.status ?? null,
    region: service.region_code ?? null,
    cpu_millis: whole(spec?.cpu_millis),
    memory_gbs: whole(spec?.memory_gbs),
  };
}

/** The service a step changes, read now (null when the step names none or it cannot be read). */
export async function serviceTarget(
  clients: CloudClientResolver,
  fields: Record<string, JsonValue>,
): Promise<PolicyContext['target']> {
  const serviceId = fields.service_id;
  const projectId = fields.project_id;
  if (typeof serviceId !== 'string' || typeof projectId !== 'string') return null;
  // A service that does not exist has no target: a rule that reads `target` then cannot be
  // evaluated, and applies (fail closed). Any other failure is thrown, so the check is retried and
  // the step fails rather than going ahead unchecked.
  const service = await clients
    .forProject(projectId)
    .call('service.get', { project_id: projectId, service_id: serviceId })
    .catch((error: unknown) => {
      if (error instanceof CloudApiError && error.code === 'CLOUD_API_NOT_FOUND') return undefined;
      throw error;
    });
  if (service === undefined) return null;
  return serviceAsTarget(serviceId, service);
}

/** A decision as the audit keeps it. */
export function policyRecord(decision: PolicyDecision, stepKey: string | null, at: number): PolicyRecord {
  const base = { rule: decision.rule, effect: decision.effect, message: decision.message, stepKey, at };
  switch (decision.effect) {
    case 'deny':
    case 'warn':
      return base;
    case 'require-approval':
      return { ...base, group: decision.group, count: decision.count };
    case 'window':
      return {
        ...base,
        calendar: decision.calendar,
        open: decision.open,
        opensAt: decision.opensAt,
        outside: decision.outside,
        ...(decision.override !== undefined && {
          group: decision.override.group,
          count: decision.override.count,
        }),
      };
  }
}

export function stepVerdict(
  decisions: readonly PolicyDecision[],
  verdict: { denied: boolean; refusedByWindow: boolean; waitUntil: number | null },
  stepKey: string | null,
  now: number,
): StepPolicyVerdict {
  const approvals: StepPolicyVerdict['approvals'] = [];
  for (const decision of decisions) {
    if (decision.effect === 'require-approval')
      approvals.push({ rule: decision.rule, group: decision.group, count: decision.count, override: false });
    if (decision.effect === 'window' && !decision.open && decision.override !== undefined)
      approvals.push({ rule: decision.rule, ...decision.override, override: true });
  }
  return {
    records: decisions.map((decision) => policyRecord(decision, stepKey, now)),
    denied: verdict.denied,
    refusedByWindow: verdict.refusedByWindow,
    waitUntil: verdict.waitUntil,
    waitMs: verdict.waitUntil === null ? null : Math.max(0, verdict.waitUntil - now),
    approvals,
  };
}

export function createCheckStepPolicyActivity(
  governance: CompiledGovernance | undefined,
  clients: CloudClientResolver,
  clock: Clock = systemClock,
) {
  return async (input: CheckStepPolicyInput): Promise<StepPolicyVerdict> => {
    const now = clock.now();
    if (governance === undefined) return noPolicyVerdict();
    const context: PolicyContext = {
      runbook: { name: input.runbook, hash: input.definitionHash },
      starter: starterContext(input.starter),
      inputs: input.inputs,
      step: { key: input.stepKey, action: input.action, with: input.with },
      target: await serviceTarget(clients, input.with),
    };
    const verdict = evaluatePolicies(governance, context, now);
    const result = stepVerdict(verdict.decisions, verdict, input.stepKey, now);
    return result.waitUntil === null
      ? result
      : { ...result, waitMs: realWaitMs(clock, result.waitUntil, now) };
  };
}
