// `tideline drift STATE`: read-only. Lists the project's services once (through the Cloud API
// settings the worker runs with, and its per-project request budget) and prints every service
// that breaks a rule of the state file. Exit 0 clean, 1 drift (a finding of severity error or
// warning), 2 an invalid state file or bad usage, 3 the Cloud API unavailable.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseCommand, type CommandSpec } from '../args';
import type { Command } from '../context';
import { EXIT } from '../errors';
import { styleFor } from '../output/style';
import { loadStateInput } from '../state-input';

export const DRIFT_SPEC = {
  name: 'drift',
  usage: 'STATE [--project ID] [--junit FILE] [--config FILE] [--json]',
  description: [
    'Checks the services of a project against a state file (kind: State): each rule selects',
    'services with the fields of a foreach `targets` selector and says in CEL over `service` what',
    'each must satisfy. Prints every service that breaks a rule: the rule, what it expects and what',
    'the service holds. Read-only: one service.list per project. The Cloud API comes from the',
    'worker configuration (--config / TIDELINE_CONFIG, or TIDELINE_CLOUD_*); the project from',
    "--project, the file's project_id or the configuration's default project. Exit 0 when nothing",
    'drifted, 1 when a rule of severity error or warning is broken, 2 when the file is invalid.',
  ],
  options: { project: { type: 'string' }, junit: { type: 'string' } },
  optionHelp: [
    ['--project ID', "the project to check (default: the file's project_id, else the configured default)"],
    ['--junit FILE', 'also write the findings as JUnit XML to FILE (one test case per rule and service)'],
  ],
  examples: [
    'tideline drift fleet.state.yaml',
    'tideline --config worker.yaml drift fleet.state.yaml --json',
  ],
  positionals: { min: 1, max: 1, names: 'the state FILE' },
} satisfies CommandSpec;

export const driftCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(DRIFT_SPEC, argv, ctx);
  const { checkDrift, hasDrift } =
    require('../../state/drift-check') as typeof import('../../state/drift-check');
  const { planWorkerConfig } = require('../plan/target-lister') as typeof import('../plan/target-lister');
  const state = loadStateInput(ctx, parsed.positionals[0] ?? '');
  if (state === undefined) return EXIT.USAGE;
  const worker = planWorkerConfig(ctx);
  const projectId = parsed.values.project ?? state.projectId ?? worker.defaultProjectId();
  const report = await checkDrift(state, projectId, worker.lister);
  if (parsed.values.junit !== undefined) {
    const { driftJunit } = require('../output/drift-report') as typeof import('../output/drift-report');
    writeFileSync(path.resolve(ctx.cwd, parsed.values.junit), driftJunit(report));
  }
  if (ctx.globals.json)
    ctx.stdout.write(`${JSON.stringify({ ok: true, drift: hasDrift(report), ...report })}\n`);
  else {
    const { driftText } = require('../output/drift-report') as typeof import('../output/drift-report');
    ctx.stdout.write(driftText(report, styleFor(ctx)));
  }
  return hasDrift(report) ? EXIT.FAILED : EXIT.OK;
};
