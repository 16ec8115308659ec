// `tideline plan` as text: inputs, the worker's policies at the start (when it has any), then each
// step with the request it would send, its conditions, the policies that apply to it and what
// undoes it, then the outputs. Nothing here calls anything.
import type { Plan, PlanRequest, PlanStep } from '../plan/build-plan';
import type { PlanStepPolicies } from '../plan/plan-policies';
import { callsText, policyHeaderLines, stepPolicyLines } from './plan-policies-text';
import { planTree } from '../plan/plan-tree';
import { oneLine, viewsOf } from '../plan/step-kind-views';
import { targetLines } from './plan-targets-text';
import { printable, printableDeep } from '../../cloud/printable';
import { SECRET_MASK } from '../../cloud/redact-text';
import { inlineValue, visibleLength, type Style } from './style';

function requestLines(request: PlanRequest, pad: string): string[] {
  const lines = [`${request.method} ${request.path}`];
  for (const [param, value] of Object.entries(request.pending))
    lines.push(`  ${param} = ${inlineValue(value)}`);
  if (request.body !== undefined) lines.push(`  body ${JSON.stringify(request.body)}`);
  if (request.query !== undefined && Object.keys(request.query).length > 0)
    lines.push(`  query ${JSON.stringify(request.query)}`);
  return lines.map((line) => `${pad}${line}`);
}

/** A step's own lines: its title, headline, request, facts, targets and policies. */
function ownLines(
  step: PlanStep,
  label: string,
  pad: string,
  style: Style,
  policies: ReadonlyMap<string, PlanStepPolicies>,
): string[] {
  const title = `${pad}${label} ${style.bold(step.id)}${step.name ? ` — ${step.name}` : ''}`;
  const inner = `${pad}${INNER}`;
  const views = viewsOf(step.kind);
  const lines = [title, `${inner}${views.headline(step)}`];
  if (step.request) lines.push(...requestLines(step.request, `${inner}  `));
  const facts: string[] = [];
  if (step.if !== undefined) facts.push(`only if ${oneLine(step.if)}`);
  facts.push(...views.leadingFacts(step));
  if (step.timeout !== undefined && !views.timeoutInHeadline) facts.push(`timeout ${step.timeout}`);
  if (step.retry) facts.push(`retry ${step.retry.attempts} attempts`);
  if (step.continueOnError) facts.push('continues on error');
  facts.push(...views.trailingFacts(step));
  if (facts.length > 0) lines.push(style.dim(`${inner}${facts.join('; ')}`));
  if (step.targets !== undefined) lines.push(...targetLines(step.targets, inner));
  const policy = policies.get(step.key);
  if (policy !== undefined) lines.push(...stepPolicyLines(policy, inner, style));
  return lines;
}

/** Under a step's title, its details; its nested steps two further in. */
const INNER = '     ';
const NESTED = `${INNER}  `;

/**
 * Every step's lines in plan order (one walk of the plan's tree, cli/plan/plan-tree.ts), each
 * nested step indented under its container, after the line that names its list (a branch, the
 * items or a child runbook's steps, the undo).
 */
function stepsLines(plan: Plan, style: Style, policies: ReadonlyMap<string, PlanStepPolicies>): string[] {
  const lines: string[] = [];
  for (const { step, parent, frames, path, depth } of planTree(plan.steps)) {
    const frame = frames.at(-1);
    const index = Number(path.at(-1));
    const pad = `  ${NESTED.repeat(depth)}`;
    if (frame !== undefined && parent !== undefined && index === 0) {
      const above = `  ${NESTED.repeat(depth - 1)}${INNER}`;
      if (frame.type === 'branch') {
        const name = parent.branches?.find((branch) => branch.id === frame.branch)?.name;
        lines.push(`${above}branch ${frame.branch}${name ? ` — ${name}` : ''}:`);
      } else if (frame.type === 'foreach') lines.push(`${above}${viewsOf(parent.kind).stepsTitle}:`);
      else lines.push(`${above}${style.yellow('undo')} (if a later step fails or the run is cancelled):`);
    }
    const label = frame?.type === 'compensate' ? '-' : `${index + 1}.`;
    lines.push(...ownLines(step, label, pad, style, policies));
  }
  return lines;
}

export function renderPlanText(raw: Plan, style: Style): string {
  // Inputs, their values and what they resolve into are outside text (printable.ts); the policy
  // lines escape their own fields (names are quoted there).
  const plan: Plan = { ...printableDeep({ ...raw, policies: undefined }), policies: raw.policies };
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
  const policies = new Map((plan.policies?.steps ?? []).map((entry) => [printable(entry.key), entry]));
  lines.push('', 'steps (values from earlier steps are known only at run time and shown as written):');
  lines.push(...stepsLines(plan, style, policies));
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
