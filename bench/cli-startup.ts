// Figure 5 — CLI start-up: wall time of `tideline --help` and `tideline validate <runbook>` as a
// user runs them (`node bin/tideline.js`, the compiled CLI, no TypeScript loader), next to bare
// `node -e 0` for the share Node itself takes.
import { spawnSync } from 'node:child_process';
import { CLI_BIN, PROVISION_RUNBOOK, REPO_ROOT } from './lib/repo';
import { summarize, type Summary } from './lib/stats';

export interface CliCommandResult {
  command: string;
  wallMs: Summary;
}

export interface CliStartupResult {
  repetitions: number;
  commands: CliCommandResult[];
}

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (run.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${run.status}: ${(run.stderr || run.stdout).slice(-500)}`);
  }
  return ms;
}

export function measureCliStartup(repetitions = 15): CliStartupResult {
  const commands: Array<[string, string[]]> = [
    ['node -e 0 (Node alone)', ['-e', '0']],
    ['tideline --help', [CLI_BIN, '--help']],
    ['tideline validate provision-production-service.yaml', [CLI_BIN, 'validate', PROVISION_RUNBOOK]],
  ];
  return {
    repetitions,
    commands: commands.map(([command, args]) => {
      timeOnce(args); // warm the file cache
      const samples = Array.from({ length: repetitions }, () => timeOnce(args));
      return { command, wallMs: summarize(samples, 0) };
    }),
  };
}
