// `tideline test --mutate`: derives mutants of the runbooks the loaded cases run, runs the cases
// against each and reports each mutant killed (by which case and expectations), survived (with its
// diff), equivalent or a known survivor (listed, with the reason, in the runbook's
// `.mutants.yaml`). Exit 0 when every mutant is killed or listed, 1 when an unlisted one survived
// or a case fails against the runbook as it is, 2 on a problem in a `.mutants.yaml`.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Dialect } from '../../local-cloud/dialect';
import type { LoadedCase } from '../../rehearsal/test-file-loader';
import type { CliContext } from '../context';
import { EXIT, type ExitCode } from '../errors';
import { styleFor } from '../output/style';

export interface MutateOptions {
  jobs: number;
  timeoutMs: number;
  junit: string | undefined;
  dialect: Dialect | undefined;
}

export async function mutateCommand(
  cases: readonly LoadedCase[],
  options: MutateOptions,
  ctx: CliContext,
): Promise<ExitCode> {
  const { planMutation } =
    require('../../rehearsal/mutation/mutation-plan') as typeof import('../../rehearsal/mutation/mutation-plan');
  const { mutationFailed, runMutation } =
    require('../../rehearsal/mutation/run-mutants') as typeof import('../../rehearsal/mutation/run-mutants');
  const report = require('../output/mutation-report') as typeof import('../output/mutation-report');
  const caseReport = require('../output/test-report') as typeof import('../output/test-report');
  const style = styleFor(ctx);
  const json = ctx.globals.json;
  const plan = planMutation(cases, ctx.cwd);
  if (!plan.ok) {
    if (json) ctx.stdout.write(`${JSON.stringify({ ok: false, problems: plan.problems })}\n`);
    else {
      ctx.stderr.write(`${plan.problems.flatMap(caseReport.problemText).join('\n')}\n`);
      ctx.stderr.write(
        `tideline: ${plan.problems.length} problem(s) in the mutants files; nothing was run\n`,
      );
    }
    return EXIT.USAGE;
  }
  const started = Date.now();
  const run = await runMutation(plan.targets, {
    env: ctx.env,
    jobs: options.jobs,
    timeoutMs: options.timeoutMs,
    ...(options.dialect !== undefined && { dialect: options.dialect }),
    log: (line) => ctx.stderr.write(`${line}\n`),
    onBaseline: (result) => {
      if (!json && !result.passed) ctx.stdout.write(`${caseReport.caseLines(result, style).join('\n')}\n`);
    },
    onMutant: (result) => {
      if (!json) ctx.stdout.write(`${report.mutantLines(result, style).join('\n')}\n`);
    },
  });
  const elapsed = Date.now() - started;
  if (!run.ok) {
    const failed = run.baseline.filter((r) => !r.passed).length;
    const message = `${failed} case(s) fail against the runbooks as they are; no mutant was run`;
    if (json)
      ctx.stdout.write(`${JSON.stringify({ ok: false, error: message, cases: run.baseline.length })}\n`);
    else ctx.stdout.write(`${style.red(message)}\n`);
    return EXIT.FAILED;
  }
  if (options.junit !== undefined) {
    const { mutationJunitXml } =
      require('../output/mutation-junit') as typeof import('../output/mutation-junit');
    writeFileSync(path.resolve(ctx.cwd, options.junit), mutationJunitXml(run.mutants));
  }
  if (json) ctx.stdout.write(`${report.mutationJson(plan.targets, run.mutants, elapsed)}\n`);
  else ctx.stdout.write(`${report.mutationSummary(plan.targets, run.mutants, elapsed, style).join('\n')}\n`);
  return mutationFailed(run.mutants) ? EXIT.FAILED : EXIT.OK;
}
