// The `run.admit` local activity: what the worker decides before a top-level run takes any step.
// The definition must be one of the worker's catalogue (by content hash), unless the worker runs
// in development mode; the starter is whoever signed the start (verified against the registered
// keys), else an unverified claim; the policies' verdict at the start is added by the caller.
// The answer also says which notification targets hear the run, so the run asks the worker once.
// Pure given its input, the configuration and the clock.
import type { Admission, AdmitRunInput, VerifiedStarter } from '../contract/admission-messages';
import { shortHash, definitionHash } from './definition-hash';
import { verifyStarter } from './approval-verify';
import type { ApprovalSettings, CatalogSettings, Clock, NotificationSettings } from './deps';
import { realWaitMs, systemClock } from './deps';
import { evaluatePolicies, hasStepRules, type CompiledGovernance } from '../dsl/policies';
import { starterContext, stepVerdict } from './policy-check';
import { DEFAULT_NOTIFICATION_SETTINGS, planNotifications } from './notify';
import { startReplayed, type StartLedger } from './start-once';

export { ADMIT_RUN_ACTIVITY } from '../contract/admission-messages';

const DEVELOPMENT: CatalogSettings = { mode: 'development', entries: new Map() };
const NO_KEYS: ApprovalSettings = { keys: new Map(), groups: new Map() };

/** The groups of the worker configuration that list `name`. */
export function groupsOf(settings: ApprovalSettings, name: string): string[] {
  return [...settings.groups.entries()]
    .filter(([, members]) => members.includes(name))
    .map(([group]) => group);
}

export function verifiedStarter(
  settings: ApprovalSettings,
  input: Pick<AdmitRunInput, 'workflowId' | 'taskQueue' | 'runStartedAt' | 'startedBy' | 'givenInputs'>,
  definitionHash: string,
): VerifiedStarter {
  if (input.startedBy === undefined)
    return { by: null, verified: false, reason: 'the start names no starter', groups: [] };
  const verdict = verifyStarter(
    settings,
    {
      workflowId: input.workflowId,
      runStartedAt: input.runStartedAt,
      admitted: { taskQueue: input.taskQueue, definitionHash, givenInputs: input.givenInputs ?? {} },
    },
    input.startedBy,
  );
  return {
    by: verdict.by,
    verified: verdict.verified,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
    groups: verdict.verified ? groupsOf(settings, verdict.by) : [],
  };
}

export function admitRun(
  catalog: CatalogSettings,
  approvals: ApprovalSettings,
  input: AdmitRunInput,
  governance?: CompiledGovernance,
  now: number = Date.now(),
): Admission {
  const hash = definitionHash(input.definition);
  const starter = verifiedStarter(approvals, input, hash);
  const entry = catalog.entries.get(hash);
  const base = {
    mode: catalog.mode,
    definitionHash: hash,
    ...(entry !== undefined && { catalogEntry: entry }),
    starter,
    policies: [],
    checksSteps: false,
  };
  if (catalog.mode === 'catalog' && entry === undefined) {
    const sameName = [...catalog.entries.values()].filter((e) => e.name === input.definition.name);
    const why =
      sameName.length > 0
        ? `its content (sha256 ${shortHash(hash)}) differs from the catalogue's ${input.definition.name} (${sameName.map((e) => e.file).join(', ')})`
        : `no runbook named ${input.definition.name} is in the catalogue`;
    return {
      ...base,
      allowed: false,
      code: 'RUNBOOK_NOT_ALLOWED',
      reason: `this worker runs only the runbooks of its catalogue: ${why}`,
    };
  }
  if (governance === undefined) return { ...base, allowed: true };
  const verdict = evaluatePolicies(
    governance,
    {
      runbook: { name: input.definition.name, hash },
      starter: starterContext(starter),
      inputs: input.inputs,
      step: null,
      target: null,
    },
    now,
  );
  const { records, approvals: needed } = stepVerdict(verdict.decisions, verdict, null, now);
  // A closed window's override is asked like at a step: granted, the run does not wait for it.
  const startApprovals = needed.map(({ rule, group, count, override }) => ({
    rule,
    group,
    count,
    ...(override && { override: true as const }),
  }));
  const checked = {
    ...base,
    policies: records,
    checksSteps: hasStepRules(governance),
    ...(startApprovals.length > 0 && { startApprovals }),
  };
  const denial = verdict.decisions.find((decision) => decision.effect === 'deny');
  if (denial !== undefined)
    return {
      ...checked,
      allowed: false,
      code: 'POLICY_DENIED',
      reason: `policy ${denial.rule}: ${denial.message}`,
    };
  if (verdict.refusedByWindow) {
    const closed = verdict.decisions.find((d) => d.effect === 'window' && !d.open);
    return {
      ...checked,
      allowed: false,
      code: 'CHANGE_WINDOW_CLOSED',
      reason: closed !== undefined ? `policy ${closed.rule}: ${closed.message}` : 'a change window is closed',
    };
  }
  return {
    ...checked,
    allowed: true,
    ...(verdict.waitUntil !== null &&
      verdict.waitUntil > now && { waitUntil: verdict.waitUntil, waitMs: verdict.waitUntil - now }),
  };
}

/** The notification plan of a run of `definition`, when any target hears it or is unknown. */
export function admissionNotifications(
  settings: NotificationSettings,
  definition: AdmitRunInput['definition'],
): Pick<Admission, 'notifications'> {
  const plan = planNotifications(settings, {
    runbook: definition.name,
    subscriptions: definition.notify ?? [],
  });
  return plan.targets.length > 0 || plan.unknown.length > 0 ? { notifications: plan } : {};
}

/**
 * An admitted run with a verified signed start is refused when the signature was used before
 * (start-once.ts); it is claimed for this run otherwise.
 */
async function admittedOnce(
  admission: Admission,
  ledger: StartLedger | undefined,
  input: AdmitRunInput,
): Promise<Admission> {
  if (!admission.allowed || !admission.starter.verified) return admission;
  const replayed = await startReplayed(ledger, input);
  if (replayed === undefined) return admission;
  const { waitUntil: _waitUntil, waitMs: _waitMs, ...refused } = admission;
  return { ...refused, allowed: false, code: 'START_REPLAYED', reason: replayed };
}

export function createAdmitRunActivity(
  catalog: CatalogSettings | undefined,
  approvals: ApprovalSettings | undefined,
  governance: CompiledGovernance | undefined,
  clock: Clock = systemClock,
  notifications: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS,
  ledger?: StartLedger,
) {
  return async (input: AdmitRunInput): Promise<Admission> => {
    const now = clock.now();
    const verdict = admitRun(catalog ?? DEVELOPMENT, approvals ?? NO_KEYS, input, governance, now);
    const admission = {
      ...(await admittedOnce(verdict, ledger, input)),
      ...admissionNotifications(notifications, input.definition),
    };
    return admission.waitUntil === undefined
      ? admission
      : { ...admission, waitMs: realWaitMs(clock, admission.waitUntil, now) };
  };
}
