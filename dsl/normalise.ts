// Authored runbook (schema output) → normalised definition. Pure: child runbooks come from the
// caller (the loader reads and checks them), so this module never touches files.
import type { ActionName } from '../cloud/operations';
import { operations } from '../cloud/operations';
import type { JsonValue } from './expressions';
import { parseDuration } from './durations';
import type {
  DurationValue,
  InputDefinition,
  OutputDefinition,
  RetryDefinition,
  RunbookDefinition,
  StepDefinition,
} from './definition';
import {
  DEFINITION_FORMAT_VERSION,
  DEFAULT_FOREACH_CONCURRENCY,
  DEFAULT_FOREACH_VARIABLE,
  DEFAULT_RAMP_FACTOR,
  DEFAULT_RAMP_START,
  DEFAULT_RETRY_BACKOFF,
  DEFAULT_RETRY_INITIAL_INTERVAL_MS,
  DEFAULT_RETRY_MAX_INTERVAL_MS,
  DEFAULT_WAIT_INTERVAL_MS,
  DEFAULT_WAIT_MAX_INTERVAL_MS,
  DEFAULT_WAIT_TIMEOUT_MS,
} from './definition';
import type { InputSpec, OutputSpec, Retry, Runbook, RunbookStep, Step } from './schema';
import { stepKind } from './schema';
import { conditionExpression, hasTemplate } from './templates';
import { stepTree } from './step-tree';
import { targetsListStepId } from './targets';
import { targetsDefinition, targetsItems, targetsListStep } from './targets-filter';

export interface NormaliseOptions {
  /** The normalised child of a `runbook` step (the loader resolves the path). */
  childRunbook?: (step: RunbookStep) => RunbookDefinition;
}

/** A literal duration in milliseconds; a template stays as written for the interpreter. */
function durationValue(text: string): DurationValue {
  return hasTemplate(text) ? text : parseDuration(text);
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

function withInput(value: Record<string, unknown> | undefined): Record<string, JsonValue> {
  return { ...((value ?? {}) as Record<string, JsonValue>) };
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

  if ('call' in step) {
    const action = step.call as ActionName;
    return {
      kind: 'call',
      ...base,
      action,
      actionKind: operations[action].kind,
      with: withInput(step.with),
      adopt: step.adopt ?? false,
    };
  }
  if ('wait' in step) {
    return {
      kind: 'wait',
      ...base,
      action: step.wait as ActionName,
      with: withInput(step.with),
      ...(step.until !== undefined && { until: conditionExpression(step.until) }),
      ...(step.failIf !== undefined && { failIf: conditionExpression(step.failIf) }),
      untilDeleted: step.untilDeleted ?? false,
      intervalMs: step.interval !== undefined ? parseDuration(step.interval) : DEFAULT_WAIT_INTERVAL_MS,
      maxIntervalMs:
        step.maxInterval !== undefined ? parseDuration(step.maxInterval) : DEFAULT_WAIT_MAX_INTERVAL_MS,
      timeoutMs: base.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS,
    };
  }
  if ('sleep' in step) return { kind: 'sleep', ...base, durationMs: durationValue(step.sleep) };
  if ('approve' in step) {
    return {
      kind: 'approve',
      ...base,
      message: step.approve,
      default: step.default ?? 'reject',
      ...(step.approvers !== undefined && {
        approvers: [...step.approvers],
        minApprovals: step.minApprovals ?? 1,
        allowSelfApproval: step.allowSelfApproval ?? true,
      }),
    };
  }
  if ('assert' in step) {
    return {
      kind: 'assert',
      ...base,
      condition: conditionExpression(step.assert),
      ...(step.message !== undefined && { message: step.message }),
    };
  }
  if ('parallel' in step) {
    return {
      kind: 'parallel',
      ...base,
      branches: step.parallel.map((branch) => ({
        id: branch.id,
        ...(branch.name !== undefined && { name: branch.name }),
        steps: nested(branch.steps),
      })),
    };
  }
  if ('foreach' in step) {
    const targets =
      typeof step.foreach === 'string' ? undefined : targetsDefinition(step.foreach.targets, step.id);
    return {
      kind: 'foreach',
      ...base,
      items:
        typeof step.foreach === 'string'
          ? conditionExpression(step.foreach)
          : targetsItems(step.foreach.targets, targetsListStepId(step.id)),
      as: step.as ?? DEFAULT_FOREACH_VARIABLE,
      concurrency: step.concurrency ?? DEFAULT_FOREACH_CONCURRENCY,
      // Set only when written: definitions without them stay exactly as before.
      ...(step.maxErrors !== undefined && { maxErrors: step.maxErrors }),
      ...(step.onMaxErrors !== undefined && { onMaxErrors: step.onMaxErrors }),
      ...(step.ramp !== undefined && {
        ramp: {
          start: step.ramp.start ?? DEFAULT_RAMP_START,
          factor: step.ramp.factor ?? DEFAULT_RAMP_FACTOR,
        },
      }),
      ...(targets !== undefined && { targets }),
      steps: nested(step.steps),
    };
  }
  if ('runbook' in step) {
    if (!options.childRunbook) {
      throw new NormaliseError(`step \`${step.id}\` runs a child runbook, but no child resolver was given`);
    }
    return {
      kind: 'runbook',
      ...base,
      path: step.runbook,
      with: withInput(step.with),
      runbook: options.childRunbook(step),
    };
  }
  if ('fail' in step) return { kind: 'fail', ...base, message: step.fail };
  throw new NormaliseError(`step \`${(step as { id: string }).id}\` has an unknown kind ${stepKind(step)}`);
}

export class NormaliseError extends Error {
  readonly code = 'RUNBOOK_NORMALISE';
  constructor(message: string) {
    super(message);
    this.name = 'NormaliseError';
  }
}

/**
 * The oldest format that holds the definition: 2 when a foreach has an error budget, a ramp or
 * selects `targets` (its selector and generated list step are format 2's), an approve step names
 * `approvers`, or the runbook names notification targets (a format-1 worker would ignore them: run
 * the fleet at full concurrency, count anyone's unsigned approval, tell nobody), else 1, so that
 * workers not yet upgraded still run what they can run as written.
 */
export function definitionFormatVersion(definition: Pick<RunbookDefinition, 'steps' | 'notify'>): number {
  const { steps } = definition;
  const budgeted = stepTree(steps).some(
    ({ step }) =>
      step.kind === 'foreach' &&
      (step.maxErrors !== undefined || step.ramp !== undefined || step.targets !== undefined),
  );
  const notifies = definition.notify !== undefined;
  return budgeted || notifies || namesApprovers(steps) ? DEFINITION_FORMAT_VERSION : 1;
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
