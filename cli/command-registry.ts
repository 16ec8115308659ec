// Every `tideline` command, declared once: its name (the key), its one-line summary, what Ctrl-C
// means while it runs, and how to load it. `tideline --help`, `tideline help CMD`, `CMD --help`
// and the "did you mean" of an unknown command all read this table, so a summary cannot drift
// from its command, and a command without a summary or loader does not compile.
//
// Why a typed table and not a framework such as oclif: oclif earns its weight with plugins, a
// generated manifest, topic trees and per-command classes. tideline has one flat list of ~27
// commands, two with subcommands, parsed by node:util parseArgs from each command's CommandSpec
// (cli/args.ts). What oclif's manifest gives — help that cannot drift and start-up that loads no
// command — this table gives through the compiler and `require` in `load`, with no dependency,
// no build step and no generated file to keep in step.
//
// Loading stays lazy: `tideline --help` reads only this module; a command's module (and what it
// imports, e.g. the Temporal SDK) loads when that command runs. The spec (usage, flags, examples)
// stays beside the code that reads its flags; test/unit/cli-command-registry.test.ts checks that
// each loaded spec carries the name it is registered under.
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading keeps start-up fast */
import { closestName } from '../dsl/suggest';
import type { CommandSpec } from './args';
import type { Command } from './context';

/**
 * What Ctrl-C means while a command runs: `detach` — the command stops following and returns
 * (a second Ctrl-C exits at once); `exit` — the process ends at once; `command` — the command
 * handles it (servers and workers that shut down gracefully).
 */
export type InterruptMode = 'detach' | 'exit' | 'command';

/** A command's module as the dispatcher needs it: its spec (for help) and what runs it. */
export interface LoadedCommand {
  spec: CommandSpec;
  run: Command;
}

export interface CommandDeclaration {
  summary: string;
  interrupt: InterruptMode;
  load: () => LoadedCommand;
  /** Old names still accepted for a release; using one prints a note naming the new one. */
  deprecatedAliases?: readonly string[];
}

export const COMMANDS = {
  run: {
    summary: 'validate a runbook, start it and follow its progress',
    interrupt: 'detach',
    load: () => {
      const module = require('./commands/run') as typeof import('./commands/run');
      return { spec: module.RUN_SPEC, run: module.runCommand };
    },
  },
  validate: {
    summary: 'check runbooks and print every problem (file:line:column)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/validate') as typeof import('./commands/validate');
      return { spec: module.VALIDATE_SPEC, run: module.validateCommand };
    },
  },
  test: {
    summary: 'run runbook test files (*.test.yaml) against a local cloud, with faults and assertions',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/test') as typeof import('./commands/test');
      return { spec: module.TEST_SPEC, run: module.testCommand };
    },
  },
  init: {
    summary: 'write a new runbook and its test file (*.test.yaml), both passing, to start from',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/init') as typeof import('./commands/init');
      return { spec: module.INIT_SPEC, run: module.initCommand };
    },
  },
  plan: {
    summary: 'show the steps and API calls a run would make, without making them',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/plan') as typeof import('./commands/plan');
      return { spec: module.PLAN_SPEC, run: module.planCommand };
    },
  },
  status: {
    summary: 'show a run, following it until it ends (reattach)',
    interrupt: 'detach',
    load: () => {
      const module = require('./commands/status') as typeof import('./commands/status');
      return { spec: module.STATUS_SPEC, run: module.statusCommand };
    },
  },
  list: {
    summary: 'list runs (running, failed, by runbook, project, service or state)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/list') as typeof import('./commands/list');
      return { spec: module.LIST_SPEC, run: module.listCommand };
    },
  },
  history: {
    summary: 'per-step timeline of a run with attempts and durations',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/history') as typeof import('./commands/history');
      return { spec: module.HISTORY_SPEC, run: module.historyCommand };
    },
  },
  cancel: {
    summary: 'cancel a run; its completed steps are compensated',
    interrupt: 'detach',
    load: () => {
      const module = require('./commands/cancel') as typeof import('./commands/cancel');
      return { spec: module.CANCEL_SPEC, run: module.cancelCommand };
    },
  },
  approve: {
    summary: "approve a run's pending approval step",
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/approve') as typeof import('./commands/approve');
      return { spec: module.APPROVE_SPEC, run: module.approveCommand };
    },
  },
  reject: {
    summary: "reject a run's pending approval step (the run fails and compensates)",
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/approve') as typeof import('./commands/approve');
      return { spec: module.REJECT_SPEC, run: module.rejectCommand };
    },
  },
  keys: {
    summary: 'create an Ed25519 key pair for signing approvals (prints the public key to register)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/keys') as typeof import('./commands/keys');
      return { spec: module.KEYS_SPEC, run: module.keysCommand };
    },
  },
  drift: {
    summary: 'the services of a project that break the rules of a state file (read-only)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/drift') as typeof import('./commands/drift');
      return { spec: module.DRIFT_SPEC, run: module.driftCommand };
    },
  },
  'drift-watch': {
    summary: "watch one of the worker's state files for drift and notify when it appears and clears",
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/drift-watch') as typeof import('./commands/drift-watch');
      return { spec: module.DRIFT_WATCH_SPEC, run: module.driftWatchCommand };
    },
  },
  state: {
    summary: 'state import: a state file (kind: State) of what the selected services hold now',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/state') as typeof import('./commands/state');
      return { spec: module.STATE_SPEC, run: module.stateCommand };
    },
  },
  reconcile: {
    summary: 'repair what drifted from a state file by running its repair runbooks, then check again',
    interrupt: 'detach',
    load: () => {
      const module = require('./commands/reconcile') as typeof import('./commands/reconcile');
      return { spec: module.RECONCILE_SPEC, run: module.reconcileCommand };
    },
  },
  catalog: {
    summary: 'the runbooks a worker with this configuration runs, with their definition hashes',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/catalog') as typeof import('./commands/catalog');
      return { spec: module.CATALOG_SPEC, run: module.catalogCommand };
    },
  },
  audit: {
    summary: "every decision sent to a run's approval steps with approvers: who, key, accepted or why not",
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/audit') as typeof import('./commands/audit');
      return { spec: module.AUDIT_SPEC, run: module.auditCommand };
    },
  },
  retry: {
    summary: 'run the failed step of a held run again (optionally with changed inputs)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/hold-actions') as typeof import('./commands/hold-actions');
      return { spec: module.RETRY_SPEC, run: module.retryCommand };
    },
  },
  skip: {
    summary: 'mark the failed step of a held run done with a given output, and go on',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/hold-actions') as typeof import('./commands/hold-actions');
      return { spec: module.SKIP_SPEC, run: module.skipCommand };
    },
  },
  rollback: {
    summary: 'roll a held run back now (compensate and fail)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/hold-actions') as typeof import('./commands/hold-actions');
      return { spec: module.ROLLBACK_SPEC, run: module.rollbackCommand };
    },
  },
  rerun: {
    summary: "start a new run of an ended run's pinned definition and inputs",
    interrupt: 'detach',
    load: () => {
      const module = require('./commands/rerun') as typeof import('./commands/rerun');
      return { spec: module.RERUN_SPEC, run: module.rerunCommand };
    },
  },
  schedule: {
    summary: 'run runbooks on a schedule (create, list, describe, pause, unpause, trigger, delete)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/schedule') as typeof import('./commands/schedule');
      return { spec: module.SCHEDULE_SPEC, run: module.scheduleCommand };
    },
  },
  upgrade: {
    summary: 'open runs by the release they started on, and the patches they may still need',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/upgrade') as typeof import('./commands/upgrade');
      return { spec: module.UPGRADE_SPEC, run: module.upgradeCommand };
    },
  },
  setup: {
    summary: "register tideline's search attributes on the namespace (idempotent)",
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/setup') as typeof import('./commands/setup');
      return { spec: module.SETUP_SPEC, run: module.setupCommand };
    },
  },
  worker: {
    summary: 'run a worker that executes runbooks',
    interrupt: 'command',
    load: () => {
      const module = require('./commands/worker') as typeof import('./commands/worker');
      return { spec: module.WORKER_SPEC, run: module.workerCommand };
    },
  },
  mcp: {
    summary:
      'serve runbooks as tools to AI agents (Model Context Protocol): plan, start, watch; people approve',
    interrupt: 'command',
    load: () => {
      const module = require('./commands/mcp') as typeof import('./commands/mcp');
      return { spec: module.MCP_SPEC, run: module.mcpCommand };
    },
  },
  'local-cloud': {
    summary: 'run the local cloud (a faithful Cloud API for rehearsals)',
    interrupt: 'command',
    deprecatedAliases: ['simulator'],
    load: () => {
      const module = require('./commands/local-cloud') as typeof import('./commands/local-cloud');
      return { spec: module.LOCAL_CLOUD_SPEC, run: module.localCloudCommand };
    },
  },
  'codec-server': {
    summary: "decrypt payloads for Temporal's Web UI and CLI (remote codec server), until Ctrl-C",
    interrupt: 'command',
    load: () => {
      const module = require('./commands/codec-server') as typeof import('./commands/codec-server');
      return { spec: module.CODEC_SERVER_SPEC, run: module.codecServerCommand };
    },
  },
  dev: {
    summary: 'run a local Temporal dev server (with Web UI), the local cloud and a worker, until Ctrl-C',
    interrupt: 'command',
    load: () => {
      const module = require('./commands/dev') as typeof import('./commands/dev');
      return { spec: module.DEV_SPEC, run: module.devCommand };
    },
  },
  cluster: {
    summary: 'a production-style Temporal on PostgreSQL on this machine (up, down, status)',
    interrupt: 'exit',
    load: () => {
      const module = require('./commands/cluster') as typeof import('./commands/cluster');
      return { spec: module.CLUSTER_SPEC, run: module.clusterCommand };
    },
  },
  demo: {
    summary: 'start the dev stack and run provision-production-service end to end',
    interrupt: 'command',
    load: () => {
      const module = require('./commands/demo') as typeof import('./commands/demo');
      return { spec: module.DEMO_SPEC, run: module.demoCommand };
    },
  },
} satisfies Record<string, CommandDeclaration>;

export type CommandName = keyof typeof COMMANDS;

/** The commands in the order `tideline --help` lists them. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

function isCommandName(word: string): word is CommandName {
  return Object.hasOwn(COMMANDS, word);
}

export function declarationOf(name: CommandName): CommandDeclaration {
  return COMMANDS[name];
}

export interface FoundCommand {
  name: CommandName;
  declaration: CommandDeclaration;
  /** Set when the command was called by a deprecated alias: the word that was typed. */
  deprecatedAlias?: string;
}

/** The command a word on the command line names, by its name or a deprecated alias. */
export function findCommand(word: string): FoundCommand | undefined {
  if (isCommandName(word)) return { name: word, declaration: declarationOf(word) };
  for (const name of COMMAND_NAMES) {
    const declaration = declarationOf(name);
    if (declaration.deprecatedAliases?.includes(word)) return { name, declaration, deprecatedAlias: word };
  }
  return undefined;
}

/** The command a mistyped word most likely meant (a deprecated alias counts as its command). */
export function closestCommand(word: string): CommandName | undefined {
  const spellings = COMMAND_NAMES.flatMap((name) => [name, ...(declarationOf(name).deprecatedAliases ?? [])]);
  const closest = closestName(word, spellings);
  return closest === undefined ? undefined : findCommand(closest)?.name;
}

/** The summary of a command, or of a subcommand (which carries its own in its spec). */
export function summaryOf(spec: CommandSpec): string | undefined {
  return spec.summary ?? (isCommandName(spec.name) ? declarationOf(spec.name).summary : undefined);
}
