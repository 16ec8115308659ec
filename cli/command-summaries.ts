// Each command's one-line summary, written once: `tideline --help` lists them (cli/main.ts, which
// must not load the commands to do so) and each command's own --help shows its line.
export const COMMAND_SUMMARIES = {
  run: 'validate a runbook, start it and follow its progress',
  validate: 'check runbooks and print every problem (file:line:column)',
  test: 'run runbook test files (*.test.yaml) against a local cloud, with faults and assertions',
  init: 'write a new runbook and its test file (*.test.yaml), both passing, to start from',
  plan: 'show the steps and API calls a run would make, without making them',
  status: 'show a run, following it until it ends (reattach)',
  list: 'list runs (running, failed, by runbook, project, service or state)',
  history: 'per-step timeline of a run with attempts and durations',
  cancel: 'cancel a run; its completed steps are compensated',
  approve: "approve a run's pending approval step",
  reject: "reject a run's pending approval step (the run fails and compensates)",
  keys: 'create an Ed25519 key pair for signing approvals (prints the public key to register)',
  audit: "every decision sent to a run's approval steps with approvers: who, key, accepted or why not",
  retry: 'run the failed step of a held run again (optionally with changed inputs)',
  skip: 'mark the failed step of a held run done with a given output, and go on',
  rollback: 'roll a held run back now (compensate and fail)',
  rerun: "start a new run of an ended run's pinned definition and inputs",
  schedule: 'run runbooks on a schedule (create, list, describe, pause, unpause, trigger, delete)',
  upgrade: 'open runs by the release they started on, and the patches they may still need',
  setup: "register tideline's search attributes on the namespace (idempotent)",
  worker: 'run a worker that executes runbooks',
  catalog: 'the runbooks a worker with this configuration runs, with their definition hashes',
  simulator: 'run the local cloud (a faithful Cloud API for rehearsals)',
  'codec-server': "decrypt payloads for Temporal's Web UI and CLI (remote codec server), until Ctrl-C",
  dev: 'run a local Temporal dev server (with Web UI), the local cloud and a worker, until Ctrl-C',
  cluster: 'a production-style Temporal on PostgreSQL on this machine (up, down, status)',
  demo: 'start the dev stack and run provision-production-service end to end',
} satisfies Record<string, string>;

export type CommandName = keyof typeof COMMAND_SUMMARIES;
