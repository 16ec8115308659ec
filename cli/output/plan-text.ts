// `tideline plan` as text: inputs, the worker's policies at the start (when it has any), then each
// step with the request it would send, its conditions, the policies that apply to it and what
// undoes it, then the outputs. Nothing here calls anything.
import type { Plan, PlanRequest, PlanStep } from '../plan/build-plan';
import type { PlanStepPolicies } from '../plan/plan-policies';
import { callsText, policyHeaderLines, stepPolicyLines } from './plan-policies-text';
import { selectorText, targetLines } from './plan-targets-text';
import { SECRET_MASK } from '../../cloud/redact-text';
import { inlineValue, visibleLength, type Style } from './style';
import { assertNever } from '../../cloud/assert-never';

/** CEL written over several YAML lines reads better on one. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function requestLines(request: PlanRequest, pad: string): string[] {
  const lines = [`${request.method} ${request.path}`];
  for (const [param, value] of Object.entries(request.pending))
    lines.push(`  ${param} = ${inlineValue(value)}`);
  if (request.body !== undefined) lines.push(`  body ${JSON.stringify(request.body)}`);
  if (request.query !== undefined && Object.keys(request.query).length > 0)
    lines.push(`  query ${JSON.stringify(request.query)}`);
  return lines.map((line) => `${pad}${line}`);
}

function headline(step: PlanStep): string {
  switch (step.kind) {
    case 'call':
      return `call ${step.request?.action ?? ''}${step.adopt ? ' (adopts an existing resource of the same name)' : ''}`;
    case 'wait':
      return `wait ${step.request?.action ?? ''} ${step.untilDeleted ? 'until the resource is gone' : `until ${oneLine(step.until ?? 'it answers')}`}`;
    case 'sleep':
      return `sleep ${step.duration ?? ''}`;
    case 'approve':
      return `approve: ${inlineValue(step.message ?? '')} (default ${step.default ?? 'reject'}${step.timeout ? ` after ${step.timeout}` : ', no timeout'})`;
    case 'assert':
      return `assert ${oneLine(step.condition ?? '')}`;
    case 'fail':
      return `fail: ${inlineValue(step.message ?? '')}`;
    case 'parallel':
      return `parallel: ${step.branches?.length ?? 0} branches at once`;
    case 'foreach':
      return step.targets !== undefined
        ? `foreach ${step.as ?? 'item'} in ${selectorText(step.targets)} (${foreachLimits(step)})`
        : `foreach ${step.as ?? 'item'} in ${step.items ?? ''} (${foreachLimits(step)})`;
    case 'runbook':
      return `runbook ${step.runbook?.path ?? ''} (${step.runbook?.name ?? ''}) with ${JSON.stringify(step.runbook?.with ?? {})}`;
    default:
      return assertNever(step.kind, 'step kind');
  }
}

/** `3 at a time, ramp 1×2, stop starting after 2 failed items, finish those in flight`. */
function foreachLimits(step: PlanStep): string {
  const parts = [`${inlineValue(step.concurrency ?? 1)} at a time`];
  if (step.ramp !== undefined)
    parts.push(`ramp from ${step.ramp.start}, ×${step.ramp.factor} while items succeed`);
  if (step.maxErrors !== undefined) {
    const budget =
      typeof step.maxErrors === 'number' ? `${step.maxErrors}` : `${step.maxErrors} of the items`;
    parts.push(
      `maxErrors ${budget}: more failed items stop new starts and ${step.onMaxErrors === 'cancel' ? 'cancel' : 'finish'} those in flight`,
    );
  }
  return parts.join(', ');
}

/**
 * A step's lines, then those of the steps it holds, indented under it. This recursion is over the
 * built plan, not a walk of the step tree (dsl/step-tree.ts): the plan was made by that walk
 * (cli/plan/build-plan.ts), it also holds a child runbook's steps (which the walk never enters),
 * and each line's number and indentation come from the plan's nesting as it is rendered.
 */
function stepLines(
  step: PlanStep,
  label: string,
  pad: string,
  style: Style,
  policies: ReadonlyMap<string, PlanStepPolicies>,
): string[] {
  const title = `${pad}${label} ${style.bold(step.id)}${step.name ? ` — ${step.name}` : ''}`;
  const inner = `${pad}     `;
  const nested = (inner2: PlanStep, label2: string) =>
    stepLines(inner2, label2, `${inner}  `, style, policies);
  const lines = [title, `${inner}${headline(step)}`];
  if (step.request) lines.push(...requestLines(step.request, `${inner}  `));
  const facts: string[] = [];
  if (step.if !== undefined) facts.push(`only if ${oneLine(step.if)}`);
  if (step.failIf !== undefined) facts.push(`fails if ${oneLine(step.failIf)}`);
  if (step.kind === 'wait') facts.push(`polls every ${step.interval ?? ''}`);
  if (step.timeout !== undefined && step.kind !== 'approve') facts.push(`timeout ${step.timeout}`);
  if (step.retry) facts.push(`retry ${step.retry.attempts} attempts`);
  if (step.continueOnError) facts.push('continues on error');
  if (step.kind === 'assert' && step.message !== undefined)
    facts.push(`message ${inlineValue(step.message)}`);
  if (facts.length > 0) lines.push(style.dim(`${inner}${facts.join('; ')}`));
  if (step.targets !== undefined) lines.push(...targetLines(step.targets, inner));
  const policy = policies.get(step.key);
  if (policy !== undefined) lines.push(...stepPolicyLines(policy, inner, style));
  for (const branch of step.branches ?? []) {
    lines.push(`${inner}branch ${branch.id}${branch.name ? ` — ${branch.name}` : ''}:`);
    branch.steps.forEach((inner2, index) => lines.push(...nested(inner2, `${index + 1}.`)));
  }
  if (step.steps !== undefined) {
    lines.push(`${inner}${step.kind === 'runbook' ? 'its steps' : 'for each item'}:`);
    step.steps.forEach((inner2, index) => lines.push(...nested(inner2, `${index + 1}.`)));
  }
  if (step.compensate.length > 0) {
    lines.push(`${inner}${style.yellow('undo')} (if a later step fails or the run is cancelled):`);
    step.compensate.forEach((inner2) => lines.push(...nested(inner2, '-')));
  }
  return lines;
}

export function renderPlanText(plan: Plan, style: Style): string {
  const called = callsText(plan.targetsResolved === true, plan.policies);
  const lines = [`${style.bold(`Plan for ${plan.runbook}`)} (${plan.file}) — ${called}`];
  if (plan.description) lines.push(style.dim(plan.description));
  if (plan.inputs.length > 0) {
    lines.push('', 'inputs:');
    const width = Math.max(...plan.inputs.map((input) => input.name.length));
    const shown = plan.inputs.map((input) =>
      input.source === 'missing'
        ? style.red('missing (required)')
        : input.secret && input.source !== 'optional'
          ? `${SECRET_MASK} (secret)`
          : input.source === 'optional'
            ? style.dim('not given (optional)')
            : `${inlineValue(input.value ?? null)}${input.source === 'default' ? style.dim(' (default)') : ''}`,
    );
    const valueWidth = Math.min(40, Math.max(...shown.map(visibleLength)));
    plan.inputs.forEach((input, index) => {
      const value = shown[index] ?? '';
      const padded = value + ' '.repeat(Math.max(0, valueWidth - visibleLength(value)));
      const about = style.dim(`${input.type}${input.description ? `: ${input.description}` : ''}`);
      lines.push(`  ${input.name.padEnd(width)}  ${padded}  ${about}`);
    });
  }
  if (plan.policies !== undefined) lines.push(...policyHeaderLines(plan.policies, style));
  const policies = new Map((plan.policies?.steps ?? []).map((entry) => [entry.key, entry]));
  lines.push('', 'steps (values from earlier steps are known only at run time and shown as written):');
  plan.steps.forEach((step, index) => lines.push(...stepLines(step, `${index + 1}.`, '  ', style, policies)));
  if (plan.outputs.length > 0) {
    lines.push('', 'outputs:');
    const width = Math.max(...plan.outputs.map((output) => output.name.length));
    for (const output of plan.outputs) {
      lines.push(
        `  ${output.name.padEnd(width)}  ${output.secret ? `${SECRET_MASK} (secret)` : inlineValue(output.value)}`,
      );
    }
  }
  const missing = plan.inputs.filter((input) => input.source === 'missing').map((input) => input.name);
  if (missing.length > 0) {
    lines.push(
      '',
      style.yellow(`inputs still needed to run: ${missing.join(', ')} (give them with -i key=value)`),
    );
  }
  return `${lines.join('\n')}\n`;
}
