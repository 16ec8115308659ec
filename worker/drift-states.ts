// The state files a worker watches (`drift:` of its configuration), read at start like its
// runbook catalogue: every file checked as `tideline drift` checks it, each named by its `name`.
// A file that does not load, two files of one name, or a drift target the configuration does not
// define stops the worker: it never watches a set of states it could not read whole. The check
// itself lists the project's services through the worker's clients, so through the project's
// API budget, and keeps only drift (error and warning findings). Rules with `repair.auto` need
// `drift.repairAs` (drift-repairs.ts): without it the worker does not start.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CloudClientResolver, DriftWatchSettings } from '../activities/deps';
import type { WatchedFinding } from '../contract/drift-watch-messages';
import type { JsonValue } from '../dsl/expressions';
import { checkDrift } from '../state/drift-check';
import { loadStateFile, type LoadedState } from '../state/state-file';
import { STATE_FILE_NAME } from '../state/state-file-name';
import type { ParsedWorkerConfig } from './config-schema';
import {
  driftRepairOutcomes,
  loadRepairIdentity,
  startDriftRepair,
  type RepairIdentity,
  type RepairRunPlace,
} from './drift-repairs';

export interface DriftStates {
  /** By state name. */
  states: ReadonlyMap<string, LoadedState>;
  /** Targets of `notifications.targets` that hear drift watchers. */
  notify: readonly string[];
  /** Who repair runs start as (`drift.repairAs`); absent: no rule repairs automatically. */
  repairAs?: RepairIdentity;
}

function stateFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...stateFiles(full));
    else if (STATE_FILE_NAME.test(entry.name)) found.push(full);
  }
  return found;
}

/** Reads the watched states; every problem is added to `problems` (file, what, how to fix). */
export function loadDriftStates(
  section: ParsedWorkerConfig['drift'],
  targets: ReadonlySet<string>,
  baseDir: string,
  problems: string[],
  approvalKeys: ReadonlyMap<string, readonly string[]> = new Map(),
  notice: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): DriftStates | undefined {
  if (section === undefined) return undefined;
  const shown = (file: string) => path.relative(baseDir, file) || file;
  const states = new Map<string, LoadedState>();
  for (const [index, given] of section.states.entries()) {
    const where = path.resolve(baseDir, given);
    let files: string[];
    try {
      files = statSync(where).isDirectory() ? stateFiles(where) : [where];
    } catch (error) {
      problems.push(
        `drift.states[${index}]: ${given} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); give a state file or a folder of *.state.yaml files, relative to the configuration file`,
      );
      continue;
    }
    if (files.length === 0) problems.push(`drift.states[${index}]: ${given} holds no *.state.yaml file`);
    for (const file of files) {
      const loaded = loadStateFile(file, shown);
      if (!loaded.ok) {
        const first = loaded.problems[0];
        problems.push(
          `drift: ${shown(file)} is not a valid state file (${loaded.problems.length} problem(s)${first ? `; first: ${first.message}` : ''}); check it with \`tideline drift ${shown(file)}\``,
        );
        continue;
      }
      const other = states.get(loaded.state.name);
      if (other !== undefined) {
        problems.push(
          `drift: ${shown(file)} and ${other.file} are both named ${loaded.state.name}; a watcher names its state, so names must differ`,
        );
        continue;
      }
      states.set(loaded.state.name, loaded.state);
    }
  }
  const notify = section.notify ?? [];
  for (const name of notify)
    if (!targets.has(name))
      problems.push(`drift.notify: ${name} is not one of notifications.targets; define it there first`);
  const repairAs = loadRepairIdentity(section.repairAs, states, approvalKeys, baseDir, problems, notice);
  return { states, notify, ...(repairAs !== undefined && { repairAs }) };
}

/**
 * The drift activities' settings: each check lists the services once through `clients`; with
 * `drift.repairAs` and a place to start runs, repairs of rules with `repair.auto` too.
 */
export function driftWatchSettings(
  drift: DriftStates,
  clients: CloudClientResolver,
  defaultProjectId: string,
  runs?: RepairRunPlace,
): DriftWatchSettings {
  const checked = async (state: LoadedState) => {
    let services: JsonValue[] = [];
    const list = async (projectId: string) => {
      const answer = await clients.forProject(projectId).call('service.list', { project_id: projectId });
      services = JSON.parse(JSON.stringify(answer)) as JsonValue[];
      return services;
    };
    const report = await checkDrift(state, state.projectId ?? defaultProjectId, list);
    return { report, services };
  };
  const { repairAs } = drift;
  return {
    targets: drift.notify,
    ...(repairAs !== undefined &&
      runs !== undefined && {
        repair: (input) => startDriftRepair(drift.states.get(input.state), checked, repairAs, runs, input),
        repairOutcomes: (workflowIds) => driftRepairOutcomes(runs.client, workflowIds),
      }),
    check(name) {
      const state = drift.states.get(name);
      if (state === undefined) return undefined;
      const auto = new Set(state.rules.filter((rule) => rule.repair?.auto === true).map((rule) => rule.name));
      return checked(state).then(({ report }) => ({
        projectId: report.projectId,
        checked: Object.values(report.checked).reduce((sum, services) => sum + services.length, 0),
        findings: report.findings.flatMap((finding): WatchedFinding[] =>
          finding.severity === 'info'
            ? []
            : [
                {
                  rule: finding.rule,
                  severity: finding.severity,
                  service: finding.service,
                  expected: finding.expected,
                  found: finding.found,
                  ...(finding.repair !== undefined && { repair: finding.repair }),
                  ...(auto.has(finding.rule) && { auto: true as const }),
                },
              ],
        ),
      }));
    },
  };
}
