// `tideline plan FILE`: what a run would do — the resolved steps and the API requests they would
// send — without calling anything and without a server. Inputs not given are shown as missing
// rather than refused, so a plan can be read before all values are known. Two exceptions, both
// read-only against the configured Cloud API: `--resolve-targets` lists the services each
// `foreach: { targets: … }` would run over (`service.list`), and a worker configuration with
// policies has the services the changing steps name read (`service.get`) so that its rules can be
// evaluated as the worker would (cli/plan/plan-policies.ts).
import { choiceOption, parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { renderPlanMermaid } from '../output/plan-mermaid';
import { renderPlanText } from '../output/plan-text';
import { styleFor } from '../output/style';
import { composePlan } from '../plan/compose-plan';
import { gatherInputs } from '../input-sources';
import { operatorName } from '../run-update';
import { bindRunInputs, loadRunbook, runbooksRootOption } from '../runbook-input';

export const PLAN_SPEC = {
  name: 'plan',
  usage:
    'FILE [-i key=value]… [--inputs FILE|-] [--runbooks-root DIR] [--resolve-targets] [--by NAME] [--format text|mermaid|json]',
  description: [
    'Validates the runbook, binds the inputs given, and prints each step with the request it would',
    'send (method, path, body). Values that depend only on inputs are filled in; values from earlier',
    'steps are known only at run time and shown as written. Secret inputs are never printed.',
    '`--format mermaid` prints the step graph as a Mermaid flowchart.',
    'A foreach over `targets` shows its selector; with --resolve-targets the plan lists the services',
    'it selects now (id, name, environment, status, region), calling only service.list with the',
    "Cloud API endpoint and credentials of the worker's configuration (--config / TIDELINE_CLOUD_*).",
    'When that configuration has policies, the plan shows the rules that apply at the start and before',
    'each changing step, and when each change window opens; it reads the service each step changes',
    '(service.get only). The starter is the name given (--by, default your user name), unverified.',
  ],
  options: {
    input: { type: 'string', short: 'i', multiple: true },
    inputs: { type: 'string' },
    'runbooks-root': { type: 'string' },
    format: { type: 'string', short: 'f' },
    'resolve-targets': { type: 'boolean' },
    by: { type: 'string' },
  },
  optionHelp: [
    ['-i, --input key=value', 'an input value (repeatable); key=@FILE reads it from a file'],
    ['--inputs FILE', 'a YAML or JSON file of input values, - for stdin (also TIDELINE_INPUT_<NAME>)'],
    ['--runbooks-root DIR', "the folder child runbooks must be in (default: the runbook's folder)"],
    ['--resolve-targets', 'list the services each targets foreach selects (calls service.list only)'],
    ['--by NAME', "the starter the worker's policies see (default: your user name; as claimed)"],
    ['-f, --format FORMAT', 'text (default), mermaid, or json (same as --json)'],
  ],
  examples: [
    'tideline plan runbooks/provision-production-service.yaml -i project_id=d1k5vk7hf2 -i name=orders',
    'tideline plan runbooks/fork-and-promote.yaml --format mermaid > fork.mmd',
    'tideline plan team-stop.yaml -i project_id=d1k5vk7hf2 -i team=shop --resolve-targets --config worker.yaml',
    'tideline plan runbooks/resize-with-rollback.yaml -i project_id=d1k5vk7hf2 -i service_id=e4mz1y0bqn -i cpu_millis=8000 --config worker.yaml',
  ],
  positionals: { min: 1, max: 1, names: 'the runbook FILE' },
} satisfies CommandSpec;

export const planCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(PLAN_SPEC, argv, ctx);
  const [file] = parsed.positionals as [string];
  const { values } = parsed;
  const format = ctx.globals.json
    ? 'json'
    : choiceOption('format', values.format, ['text', 'mermaid', 'json'] as const, 'text');
  const runbook = loadRunbook(file, ctx, runbooksRootOption(values['runbooks-root'], ctx));
  const given = await gatherInputs(
    runbook.definition,
    { pairs: values.input, inputsFile: values.inputs },
    ctx,
  );
  const declared = runbook.definition.inputs;
  const missing = new Set(
    Object.entries(declared)
      .filter(
        ([name, spec]) =>
          spec.required && spec.default === undefined && (given[name] === undefined || given[name] === null),
      )
      .map(([name]) => name),
  );
  // Bind everything but the missing inputs: wrong values are still errors (exit 2).
  const bindable = Object.fromEntries(Object.entries(declared).filter(([name]) => !missing.has(name)));
  const bound = bindRunInputs({ ...runbook, definition: { ...runbook.definition, inputs: bindable } }, given);
  const plan = await composePlan(ctx, {
    definition: runbook.definition,
    file,
    bound,
    missing,
    given: new Set(Object.keys(given)),
    resolveTargets: values['resolve-targets'] === true,
    // The step graph shows no policies: read nothing for it.
    withPolicies: format !== 'mermaid',
    starterName: values.by ?? operatorName(ctx.env) ?? '',
  });
  if (format === 'json') ctx.stdout.write(`${JSON.stringify(plan)}\n`);
  else if (format === 'mermaid') ctx.stdout.write(renderPlanMermaid(plan));
  else ctx.stdout.write(renderPlanText(plan, styleFor(ctx)));
  return EXIT.OK;
};
