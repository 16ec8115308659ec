// `tideline test [PATH…]`: runs the cases of runbook test files (`*.test.yaml`), state cases
// included, on a stack it starts and stops itself — an in-memory Temporal dev server, a worker
// in this process and a local cloud per case — and reports each case, then what the cases
// covered of each runbook. Exit 0 when all pass, 1 when one fails, 2 when a test file (or a
// runbook or state file it names) is invalid.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { integerOption, parseCommand, type CommandSpec } from '../args';
import { dialectFlag } from '../dev-stack-flags';
import type { Command } from '../context';
import { CliError, EXIT } from '../errors';
import { styleFor } from '../output/style';

export const TEST_SPEC = {
  name: 'test',
  usage:
    '[PATH…] [--filter TEXT] [--junit FILE] [--jobs N] [--timeout SECONDS] [--no-coverage] [--mutate] [--dialect current|seed]',
  description: [
    'Runs every case of the test files given, and of every *.test.yaml under the folders given',
    '(default: runbooks/). Each case gets a fresh local cloud holding its starting state and faults;',
    'its run goes through a Temporal dev server and a worker that this command starts and stops, so',
    'nothing needs to be running. Test files are checked first: a problem is printed with',
    'file:line:column and nothing runs (exit 2). Exit 0 when every case passes, 1 when any fails.',
    'The Temporal flags (--address, --namespace, --task-queue, --config) do not apply: the server,',
    "namespace and task queue are its own. The cases' local clouds answer as the real API does today",
    '(the current dialect); --dialect seed makes them answer as spec.md does.',
    'A case may name a state file (state:) instead of a runbook: the findings of `tideline drift`',
    'on its cloud must be exactly those it lists, and with reconcile: true the repairs run as',
    '`tideline reconcile` runs them, then the findings after and the end state are checked.',
    'After the results it shows, per runbook, how many of its steps, branches (if, approvals,',
    'compensations) and failure paths the cases that ran exercised, and which ones none did.',
    'With --mutate it makes each runbook wrong in small ways (a compensation calling a sibling',
    'operation or dropped, a step dropped, a literal changed, an input swapped, an `if` negated, an',
    "approval's default flipped, a wait's condition weakened), runs the runbook's cases against each",
    'mutant and reports it killed (by which case and expectations) or survived (with its diff);',
    'mutants no case can tell apart are listed with the reason in <runbook>.mutants.yaml.',
  ],
  options: {
    filter: { type: 'string' },
    junit: { type: 'string' },
    jobs: { type: 'string', short: 'j' },
    timeout: { type: 'string' },
    'no-coverage': { type: 'boolean' },
    mutate: { type: 'boolean' },
    dialect: { type: 'string' },
  },
  optionHelp: [
    ['--filter TEXT', 'only the cases whose name (or file) contains TEXT, in any case'],
    ['--junit FILE', 'also write the results as JUnit XML to FILE (for CI test reports)'],
    ['-j, --jobs N', 'how many cases run at once (default 4; they mostly wait on the cloud)'],
    ['--timeout SECONDS', 'how long one case may take (default 120)'],
    ['--no-coverage', 'leave out the coverage of the runbooks (text and --json)'],
    ['--mutate', 'run the cases against mutants of their runbooks; exit 1 when one survives'],
    ['--dialect current|seed', "the dialect the cases' local clouds answer in (default current)"],
  ],
  examples: [
    'tideline test',
    'tideline test runbooks/provision-production-service.test.yaml --filter pooler',
    'tideline test runbooks/ --junit test-results.xml',
    'tideline test --mutate runbooks/rotate-password.test.yaml',
  ],
  positionals: { min: 0, names: 'a test file or folder' },
} satisfies CommandSpec;

export const testCommand: Command = async (argv, ctx) => {
  const parsed = parseCommand(TEST_SPEC, argv, ctx);
  const { values } = parsed;
  const jobs = integerOption('jobs', values.jobs, 1, 4);
  const timeoutMs = integerOption('timeout', values.timeout, 1, 120) * 1000;
  const dialect = dialectFlag(values.dialect);
  const { loadSuite, runSuite } =
    require('../../rehearsal/run-suite') as typeof import('../../rehearsal/run-suite');
  const report = require('../output/test-report') as typeof import('../output/test-report');
  const { suiteCoverage } = require('../../rehearsal/coverage') as typeof import('../../rehearsal/coverage');
  const loaded = loadSuite(
    parsed.positionals.length > 0 ? parsed.positionals : ['runbooks'],
    ctx.cwd,
    values.filter,
  );
  if (!loaded.ok) {
    if (ctx.globals.json) {
      ctx.stdout.write(`${JSON.stringify({ ok: false, problems: loaded.problems })}\n`);
    } else {
      const count = loaded.problems.length;
      ctx.stderr.write(`${loaded.problems.flatMap(report.problemText).join('\n')}\n`);
      ctx.stderr.write(
        `tideline: ${count} problem${count === 1 ? '' : 's'} in the test files; nothing was run\n`,
      );
    }
    return EXIT.USAGE;
  }
  if (loaded.cases.length + loaded.stateCases.length === 0) {
    throw new CliError(
      'CLI_USAGE',
      values.filter !== undefined ? `no test case matches "${values.filter}"` : 'no test cases found',
      `test files end in .test.yaml; looked in ${loaded.files.length > 0 ? loaded.files.join(', ') : parsed.positionals.join(', ') || 'runbooks'}`,
    );
  }
  if (values.mutate === true) {
    const { mutateCommand } = require('./test-mutate') as typeof import('./test-mutate');
    return mutateCommand(loaded.cases, { jobs, timeoutMs, junit: values.junit, dialect }, ctx);
  }
  const style = styleFor(ctx);
  const started = Date.now();
  const results = await runSuite(
    loaded.cases,
    {
      env: ctx.env,
      jobs,
      timeoutMs,
      ...(dialect !== undefined && { dialect }),
      log: (line) => ctx.stderr.write(`${line}\n`),
      onResult: (result) => {
        if (!ctx.globals.json) ctx.stdout.write(`${report.caseLines(result, style).join('\n')}\n`);
      },
    },
    loaded.stateCases,
  );
  const elapsed = Date.now() - started;
  if (values.junit !== undefined) {
    const { junitXml } = require('../output/test-junit') as typeof import('../output/test-junit');
    writeFileSync(path.resolve(ctx.cwd, values.junit), junitXml(results));
  }
  // Counted over the cases that ran: with --filter, only the cases it kept.
  // State cases run no runbook of their own: the runbook cases' results come first.
  const coverage =
    values['no-coverage'] === true
      ? undefined
      : suiteCoverage(loaded.cases, results.slice(0, loaded.cases.length));
  if (ctx.globals.json) ctx.stdout.write(`${report.resultsJson(results, elapsed, coverage)}\n`);
  else {
    ctx.stdout.write(`${report.summaryLine(results, elapsed, style)}\n`);
    const lines = coverage === undefined ? [] : report.coverageLines(coverage, style);
    if (lines.length > 0) ctx.stdout.write(`${lines.join('\n')}\n`);
  }
  return results.every((r) => r.passed) ? EXIT.OK : EXIT.FAILED;
};
