// What `tideline plan` builds and prints: each step with the request it would send, its inputs and
// outputs, and the services a foreach over targets selects. Types only, shared by the plan's
// builder, its target listing and its renderers.
import type { ActionName } from '../../cloud/operations';
import type { RetryDefinition, StepDefinition, TargetsDefinition } from '../../dsl/definition';
import type { JsonValue } from '../../dsl/expressions';
import type { PlanPolicies } from './plan-policy-types';

/** One selected service, as a plan shows it. */
export interface PlanTarget {
  service_id: string;
  name: string;
  environment: string;
  status: string;
  region: string;
}

export interface PlanTargets {
  /** The selector with the values the known inputs give; others stay as written. */
  selector: Omit<TargetsDefinition, 'listStepId'>;
  /** The id of the step that lists the services (the step before the foreach). */
  listStepId: string;
  /** After `--resolve-targets`: the services selected now, in the order listed. */
  services?: PlanTarget[];
  /** After `--resolve-targets`: why the services could not be listed before the run. */
  unresolved?: string;
}

export interface PlanInput {
  name: string;
  type: string;
  source: 'given' | 'default' | 'missing' | 'optional';
  secret: boolean;
  /** The value (absent for missing and secret inputs). */
  value?: JsonValue;
  description?: string;
}

export interface PlanRequest {
  action: ActionName;
  method: string;
  /** The path with resolved parameters; unresolved ones stay `{name}`. */
  path: string;
  /** Path parameters only known at run time: name → template. */
  pending: Record<string, JsonValue>;
  body?: Record<string, JsonValue>;
  query?: Record<string, JsonValue>;
}

export interface PlanStep {
  key: string;
  id: string;
  kind: StepDefinition['kind'];
  name?: string;
  if?: string;
  request?: PlanRequest;
  until?: string;
  failIf?: string;
  untilDeleted?: boolean;
  interval?: string;
  timeout?: string;
  duration?: string;
  message?: JsonValue;
  condition?: string;
  default?: 'approve' | 'reject';
  items?: string;
  as?: string;
  concurrency?: JsonValue;
  maxErrors?: number | string;
  onMaxErrors?: 'finish' | 'cancel';
  ramp?: { start: number; factor: number };
  waves?: number;
  /** A foreach over `targets`: the selector, and with `--resolve-targets` the services it selects. */
  targets?: PlanTargets;
  runbook?: { path: string; name: string; with: Record<string, JsonValue> };
  retry?: RetryDefinition;
  continueOnError: boolean;
  adopt?: boolean;
  compensate: PlanStep[];
  branches?: { id: string; name?: string; steps: PlanStep[] }[];
  steps?: PlanStep[];
}

export interface Plan {
  runbook: string;
  description: string;
  file: string;
  inputs: PlanInput[];
  steps: PlanStep[];
  outputs: { name: string; value: JsonValue; secret: boolean }[];
  /** Set when `--resolve-targets` listed services. */
  targetsResolved?: boolean;
  /** The worker's policies for this run, when its configuration has any. */
  policies?: PlanPolicies;
}
