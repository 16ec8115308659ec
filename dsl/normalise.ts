// Authored runbook (schema output) → normalised definition. Pure: child runbooks come from the
// caller (the loader reads and checks them), so this module never touches files.
import type { JsonValue } from './expressions';
import { parseDuration } from './durations';
import type {
  InputDefinition,
  OutputDefinition,
  RetryDefinition,
  RunbookDefinition,
  StepDefinition,
} from './definition';
import {
  DEFAULT_RETRY_BACKOFF,
  DEFAULT_RETRY_INITIAL_INTERVAL_MS,
  DEFAULT_RETRY_MAX_INTERVAL_MS,
} from './definition';
import type { InputSpec, OutputSpec, Retry, Runbook, RunbookStep, Step } from './schema';
import { conditionExpression } from './templates';
import { stepTree } from './step-tree';
import { durationValue } from './step-kinds/shared';
import { writtenKind } from './step-kinds/runtime-table';
import { languageOf } from './step-kinds/table';
import { targetsListStep } from './targets-filter';

export interface NormaliseOptions {
  /** The normalised child of a `runbook` step (the loader resolves the path). */
  childRunbook?: (step: RunbookStep) => RunbookDefinition;
}

function bound(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : parseDuration(value);
}

function normaliseInput(spec: InputSpec): InputDefinition {
  const hasDefault = spec.default !== undefined;
  const out: InputDefinition = {
    type: spec.type,
    required: spec.required ?? !hasDefault,
    secret: spec.secret ?? false,
  };
  if (spec.description !== undefined) out.description = spec.description;
  if (hasDefault) out.default = spec.default as JsonValue;
  if (spec.pattern !== undefined) out.pattern = spec.pattern;
  const min = bound(spec.min);
  const max = bound(spec.max);
  if (min !== undefined) out.min = min;
  if (max !== undefined) out.max = max;
  if (spec.values !== undefined) out.values = [...spec.values];
  return out;
}

function normaliseOutput(spec: OutputSpec): OutputDefinition {
  if (typeof spec === 'string') return { value: spec, secret: false };
  const out: OutputDefinition = { value: spec.value as JsonValue, secret: spec.secret ?? false };
  if (spec.description !== undefined) out.description = spec.description;
  return out;
}

function normaliseRetry(retry: Retry): RetryDefinition {
  return {
    attempts: retry.attempts,
    initialIntervalMs:
      retry.initialInterval !== undefined
        ? parseDuration(retry.initialInterval)
        : DEFAULT_RETRY_INITIAL_INTERVAL_MS,
    backoff: retry.backoff ?? DEFAULT_RETRY_BACKOFF,
    maxIntervalMs:
      retry.maxInterval !== undefined ? parseDuration(retry.maxInterval) : DEFAULT_RETRY_MAX_INTERVAL_MS,
  };
}

/**
 * A step list: each step as it normalises, and before a foreach over `targets` the step that lists
 * the services it filters (dsl/targets-filter.ts).
 */
function normaliseSteps(steps: Step[], options: NormaliseOptions): StepDefinition[] {
  return steps.flatMap((step) => {
    const normalised = normaliseStep(step, options);
    return normalised.kind === 'foreach' && normalised.targets !== undefined
      ? [targetsListStep(normalised.targets, normalised), normalised]
      : [normalised];
  });
}

function normaliseStep(step: Step, options: NormaliseOptions): StepDefinition {
  const compensate =
    step.compensate === undefined ? [] : Array.isArray(step.compensate) ? step.compensate : [step.compensate];
  const base = {
    id: step.id,
    ...(step.name !== undefined && { name: step.name }),
    ...(step.description !== undefined && { description: step.description }),
    ...(step.if !== undefined && { if: conditionExpression(step.if) }),
    ...(step.timeout !== undefined && { timeoutMs: durationValue(step.timeout) }),
    ...(step.retry !== undefined && { retry: normaliseRetry(step.retry) }),
    compensate: normaliseSteps(compensate, options),
    continueOnError: step.continueOnError ?? false,
    ...(step.onFailure !== undefined && { onFailure: step.onFailure }),
  };
  // A container's onFailure is the default of the steps inside it (containers never hold).
  const nested = (steps: Step[]) =>
    normaliseSteps(
      steps.map((inner) =>
        step.onFailure !== undefined && inner.onFailure === undefined
          ? { ...inner, onFailure: step.onFailure }
          : inner,
      ),
      options,
    );

  return languageOf(writtenKind(step)).normalise(step, {
    base,
    nested,
    ...(options.childRunbook !== undefined && { childRunbook: options.childRunbook }),
  });
}

export { NormaliseError } from './step-kinds/shared';

/** The first format with error budgets, ramps, `targets`, approvers and `notify`. */
const BUDGET_FORMAT_VERSION = 2;
/** The first format with `watch` steps. */
const WATCH_FORMAT_VERSION = 3;
/** The first format with foreach `waves`. */
const WAVES_FORMAT_VERSION = 4;

/**
 * The oldest format that holds the definition: 2 when a foreach has an error budget, a ramp or
 * selects `targets` (its selector and generated list step are format 2's), an approve step names
 * `approvers`, or the runbook names notification targets (a format-1 worker would ignore them: run
 * the fleet at full concurrency, count anyone's unsigned approval, tell nobody), else 1, so that
 * workers not yet upgraded still run what they can run as written. A `watch` step anywhere makes
 * it format 3 (a format-2 worker does not know the kind); a foreach in `waves`, format 4.
 */
export function definitionFormatVersion(definition: Pick<RunbookDefinition, 'steps' | 'notify'>): number {
  const { steps } = definition;
  const budgeted = stepTree(steps).some(
    ({ step }) =>
      step.kind === 'foreach' &&
      (step.maxErrors !== undefined || step.ramp !== undefined || step.targets !== undefined),
  );
  const notifies = definition.notify !== undefined;
  if (stepTree(steps).some(({ step }) => step.kind === 'foreach' && step.waves !== undefined))
    return WAVES_FORMAT_VERSION;
  if (stepTree(steps).some(({ step }) => step.kind === 'watch')) return WATCH_FORMAT_VERSION;
  return budgeted || notifies || namesApprovers(steps) ? BUDGET_FORMAT_VERSION : 1;
}

/** Whether an approve step anywhere under `steps` names its approvers (decisions are verified). */
export function namesApprovers(steps: readonly StepDefinition[]): boolean {
  return stepTree(steps).some(({ step }) => step.kind === 'approve' && step.approvers !== undefined);
}

/** Builds the normalised definition of a runbook the schema (and validator) accepted. */
export function normaliseRunbook(runbook: Runbook, options: NormaliseOptions = {}): RunbookDefinition {
  const steps = normaliseSteps(runbook.steps, options);
  const notify = runbook.notify?.map(({ target, events }) => ({ target, ...(events && { events }) }));
  return {
    formatVersion: definitionFormatVersion({ steps, notify }),
    apiVersion: runbook.apiVersion,
    name: runbook.name,
    description: runbook.description,
    inputs: Object.fromEntries(
      Object.entries(runbook.inputs ?? {}).map(([name, spec]) => [name, normaliseInput(spec)]),
    ),
    steps,
    outputs: Object.fromEntries(
      Object.entries(runbook.outputs ?? {}).map(([name, spec]) => [name, normaliseOutput(spec)]),
    ),
    ...(runbook.onFailure !== undefined && { onFailure: runbook.onFailure }),
    ...(runbook.holdTimeout !== undefined && { holdTimeoutMs: parseDuration(runbook.holdTimeout) }),
    ...(notify !== undefined && { notify }),
  };
}
