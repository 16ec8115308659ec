// `tideline reconcile STATE`: checks drift as `tideline drift` does, starts the repair runbook of
// each finding whose rule declares one as an ordinary run (one per service and runbook), watches
// the runs until they end or stop for a person (approval) or a closed change window, then checks
// again and reports what is still out. Exit 0 when everything is clean after, 1 when drift remains
// or a repair did not succeed, 2 for an invalid state file, repair inputs or usage.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { styleFor } from '../output/style';
import { loadStateInput } from '../state-input';

export const RECONCILE_SPEC = {
  name: 'reconcile',
  usage: 'STATE [--project ID] [--plan] [--by NAME] [--key FILE] [--config FILE] [--json]',
  description: [
    'Checks the services of a project against a state file like `tideline drift`, then starts the',
    'repair runbook (`repair:` of the rule) for each service that breaks a rule: one ordinary run',
    'per service and runbook, with `repair.with` filled in for the service (${{ service.… }},',
    "${{ project_id }}). The worker's catalogue, verified starter, locks, policies, change windows",
    'and approvals apply as to `tideline run`. A repair refused by the worker is reported with its',
    'code and reason; one waiting for an approval or a closed change window is reported with its',
    'run id (and the approve command) and left waiting. Then drift is checked again. --plan shows',
    'the runs and starts nothing. Exit 0 when nothing drifted after, 1 when drift remains or a',
    'repair did not succeed, 2 when the file or its repair inputs are invalid.',
  ],
  options: {
    project: { type: 'string' },
    plan: { type: 'boolean' },
    by: { type: 'string' },
    key: { type: 'string' },
  },
  optionHelp: [
    [
      '--project ID',
      "the project to reconcile (default: the file's project_id, else the configured default)",
    ],
    ['--plan', 'show the repair runs reconcile would start (runbook, service, inputs); start nothing'],
    [
      '--by NAME, --key FILE',
      "who starts the repair runs (default: your user name), signed with NAME's approval key when there",
    ],
  ],
  examples: [
    'tideline --config worker.yaml reconcile fleet.state.yaml --plan',
    'tideline --config worker.yaml reconcile fleet.state.yaml --address temporal:7233',
  ],
  positionals: { min: 1, max: 1, names: 'the state FILE' },
} satisfies CommandSpec;

export const reconcileCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(RECONCILE_SPEC, argv, ctx);
  const { checkDrift, hasDrift } =
    require('../../state/drift-check') as typeof import('../../state/drift-check');
  const { planRepairs } = require('../../state/repair-plan') as typeof import('../../state/repair-plan');
  const { planWorkerConfig } = require('../plan/target-lister') as typeof import('../plan/target-lister');
  const { driftText } = require('../output/drift-report') as typeof import('../output/drift-report');
  const report = require('../output/reconcile-report') as typeof import('../output/reconcile-report');
  const state = loadStateInput(ctx, parsed.positionals[0] ?? '');
  if (state === undefined) return EXIT.USAGE;
  const style = styleFor(ctx);
  const json = ctx.globals.json;
  const say = (lines: string[]) => {
    if (!json && lines.length > 0) ctx.stdout.write(`${lines.join('\n')}\n`);
  };

  const worker = planWorkerConfig(ctx);
  const projectId = parsed.values.project ?? state.projectId ?? worker.defaultProjectId();
  // Drift read after this instant; a repair run closed before it did not mend what is read here.
  const checkedAt = new Date();
  const services = await worker.lister(projectId);
  const before = await checkDrift(state, projectId, () => Promise.resolve(services));
  const plan = planRepairs(state, before, services);
  say([driftText(before, style).trimEnd()]);
  if (plan.problems.length > 0) {
    if (json) ctx.stdout.write(`${JSON.stringify({ ok: false, before, plan: report.planJson(plan) })}\n`);
    else for (const problem of plan.problems) ctx.stderr.write(`${report.problemLine(problem, style)}\n`);
    return EXIT.USAGE;
  }
  if (parsed.values.plan === true || plan.repairs.length === 0) {
    const count = plan.repairs.length;
    say([
      ...(hasDrift(before) ? [''] : []),
      ...report.planLines(plan, style),
      `${parsed.values.plan === true ? 'would start' : 'nothing to start:'} ${count} repair run${count === 1 ? '' : 's'}`,
    ]);
    if (json)
      ctx.stdout.write(
        `${JSON.stringify({ ok: true, drift: hasDrift(before), before, plan: report.planJson(plan) })}\n`,
      );
    return hasDrift(before) ? EXIT.FAILED : EXIT.OK;
  }

  say(['', ...plan.unrepairable.map((finding) => report.unrepairableLine(finding, style))]);
  const { withTemporal } = require('../temporal') as typeof import('../temporal');
  const { runRepairs } = require('../reconcile-runs') as typeof import('../reconcile-runs');
  const runs = await withTemporal(ctx, (session) =>
    runRepairs(ctx, session, plan.repairs, {
      by: parsed.values.by,
      keyFile: parsed.values.key,
      state: state.name,
      findings: before.findings,
      checkedAt,
      onStarted: (repair, workflowId, joined) =>
        say([
          joined
            ? `${repair.definition.name} for ${repair.service.name} is already being repaired (or was just repaired) by run ${workflowId}; following it`
            : `started ${repair.definition.name} for ${repair.service.name} as run ${workflowId}`,
        ]),
      onEnded: (run) => say(report.runLines(ctx, run, style)),
    }),
  );
  const after = await checkDrift(state, projectId, worker.lister);
  const repaired = runs.filter((run) => run.outcome.kind === 'repaired').length;
  say([
    '',
    `after ${repaired} of ${runs.length} repair run${runs.length === 1 ? '' : 's'} succeeded:`,
    driftText(after, style).trimEnd(),
  ]);
  const clean = repaired === runs.length && !hasDrift(after);
  if (json)
    ctx.stdout.write(
      `${JSON.stringify({ ok: true, drift: hasDrift(after), clean, before, plan: report.planJson(plan), runs: runs.map(report.runJson), after })}\n`,
    );
  return clean ? EXIT.OK : EXIT.FAILED;
};
