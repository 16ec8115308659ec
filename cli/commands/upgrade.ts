// `tideline upgrade status`: the open runs of the namespace (runbooks, their foreach batches and
// service locks) grouped by the release they started on, and the patches whose old branch each
// may still take (cli/upgrade/patch-needs.ts), so a patch is retired with evidence: `--patch ID`
// exits 0 only when no open run may need it. Read from Temporal's visibility store (each run's
// TemporalChangeVersion search attribute); a run without one is read from its history's markers.
// Every open run is read (no cap), so "no open run needs it" is evidence, not a sample.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { WORKFLOW_TYPES } from '../../contract/workflow-types';
import { closestName } from '../../dsl/suggest';
import { commandWordIndex, parseCommand, type CommandSpec } from '../args';
import type { CliContext, Command } from '../context';
import { CliError, EXIT } from '../errors';
import { withTemporal, type TemporalSession } from '../temporal';
import { knownPatches, runPatchNeeds, type RunPatchNeeds } from '../upgrade/patch-needs';

/** Where Temporal's core SDK records the patch ids a run took. */
const CHANGE_VERSION = defineSearchAttributeKey('TemporalChangeVersion', SearchAttributeType.KEYWORD_LIST);

export const UPGRADE_STATUS_SPEC = {
  name: 'upgrade status',
  usage: '[--patch ID]',
  summary: 'open runs by the release they started on, and the patches they may still need',
  description: [
    'Lists the open runs of the namespace (runbooks, foreach batches, service locks) grouped by',
    'the release they started on, as far as their patch markers tell (a release gate recorded at',
    'the start: that release or later), and, for each patch of contract/patches.ts, how many',
    'open runs may still take its old branch: those that did not record it and whose gate does',
    'not imply it. A patch no open run needs can be retired (docs/upgrading.md).',
    'Conservative: a run that never asks for a patch is counted as possibly needing it until the',
    'next release gate; service locks of a type that asks for no patch need none. --patch ID',
    'exits 1 (PATCH_STILL_NEEDED) while an open run may need it.',
  ],
  options: { patch: { type: 'string' } },
  optionHelp: [
    ['--patch ID', 'check one patch: exit 0 when no open run needs it, 1 (and the runs) otherwise'],
  ],
  examples: [
    'tideline upgrade status',
    'tideline upgrade status --json',
    'tideline upgrade status --patch tideline-2026-11-parallel-fail-fast',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export const UPGRADE_SPEC = {
  name: 'upgrade',
  usage: 'status …',
  description: ['subcommands:\n  status [--patch ID]            open runs by release, patches they may need'],
  options: {},
  optionHelp: [],
  examples: [
    'tideline upgrade status',
    'tideline upgrade status --patch tideline-2026-11-parallel-fail-fast',
  ],
  positionals: { min: 0, max: 0, names: '' },
} satisfies CommandSpec;

export interface OpenRunNeeds extends RunPatchNeeds {
  workflowId: string;
  runId: string;
  workflowType: string;
  startTime: string;
  /** The patch ids the run recorded. */
  recorded: string[];
}

export interface UpgradeStatus {
  namespace: string;
  openRuns: number;
  /** Groups by the release the runs started on, newest first. */
  releases: Array<{ startedOn: string; gate: string | null; runs: OpenRunNeeds[] }>;
  /** Every known patch (gates left out) and the open runs that may take its old branch. */
  patches: Array<{ id: string; release: string; neededBy: string[] }>;
}

/** Patch ids from the `core_patch` markers of the run's history. */
async function recordedInHistory(session: TemporalSession, info: WorkflowExecutionInfo): Promise<string[]> {
  const history = await session.client.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
  const ids: string[] = [];
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    const data =
      marker?.markerName === 'core_patch' ? marker.details?.['patch-data']?.payloads?.[0]?.data : undefined;
    if (data) ids.push((JSON.parse(Buffer.from(data).toString('utf8')) as { id: string }).id);
  }
  return ids;
}

export async function readUpgradeStatus(session: TemporalSession): Promise<UpgradeStatus> {
  const types = WORKFLOW_TYPES.map((type) => `'${type}'`).join(', ');
  const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${types})`;
  const runs: OpenRunNeeds[] = [];
  for await (const info of session.client.workflow.list({ query })) {
    const recorded =
      info.typedSearchAttributes.get(CHANGE_VERSION) ?? (await recordedInHistory(session, info));
    runs.push({
      workflowId: info.workflowId,
      runId: info.runId,
      workflowType: info.type,
      startTime: info.startTime.toISOString(),
      recorded: [...recorded],
      ...runPatchNeeds(info.type, recorded),
    });
  }
  const groups = new Map<string, { startedOn: string; gate: string | null; runs: OpenRunNeeds[] }>();
  for (const run of runs) {
    const group = groups.get(run.startedOn) ?? { startedOn: run.startedOn, gate: run.gate, runs: [] };
    group.runs.push(run);
    groups.set(run.startedOn, group);
  }
  const releases = [...groups.values()].sort((a, b) => b.startedOn.localeCompare(a.startedOn));
  const patches = knownPatches()
    .filter((patch) => !patch.gate)
    .map((patch) => ({
      id: patch.id,
      release: patch.release,
      neededBy: runs.filter((run) => run.needs.includes(patch.id)).map((run) => run.workflowId),
    }));
  return { namespace: session.target.namespace, openRuns: runs.length, releases, patches };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function renderStatus(status: UpgradeStatus): string {
  const lines = [`${plural(status.openRuns, 'open run')} in namespace ${status.namespace}`];
  for (const group of status.releases) {
    const gate = group.gate ? `recorded ${group.gate}` : 'no release gate recorded';
    lines.push('', `started on ${group.startedOn} (${gate}): ${plural(group.runs.length, 'run')}`);
    for (const run of group.runs) {
      const needs =
        run.needs.length === 0 ? 'needs no old branch' : `may take the old branch of ${run.needs.join(', ')}`;
      lines.push(`  ${run.workflowId}  ${run.workflowType}  ${needs}`);
    }
  }
  const needed = status.patches.filter((patch) => patch.neededBy.length > 0);
  const free = status.patches.filter((patch) => patch.neededBy.length === 0);
  lines.push('', 'patches open runs may still need:');
  for (const patch of needed) lines.push(`  ${patch.id}  ${plural(patch.neededBy.length, 'run')}`);
  if (needed.length === 0) lines.push('  none');
  lines.push('', 'patches no open run needs (can be retired):');
  for (const patch of free) lines.push(`  ${patch.id}`);
  if (free.length === 0) lines.push('  none');
  return `${lines.join('\n')}\n`;
}

async function upgradeStatus(argv: string[], ctx: CliContext): Promise<number> {
  const parsed = parseCommand(UPGRADE_STATUS_SPEC, argv, ctx);
  const patchId = parsed.values.patch;
  const patches = knownPatches().filter((patch) => !patch.gate);
  if (patchId !== undefined && !patches.some((patch) => patch.id === patchId)) {
    const closest = closestName(
      patchId,
      patches.map((patch) => patch.id),
    );
    throw new CliError(
      'CLI_USAGE',
      `unknown patch "${patchId}"`,
      closest ? `did you mean ${closest}?` : 'one of the ids in contract/patches.ts (not a release gate)',
    );
  }
  const status = await withTemporal(ctx, (session) => readUpgradeStatus(session));
  if (patchId === undefined) {
    ctx.stdout.write(ctx.globals.json ? `${JSON.stringify(status)}\n` : renderStatus(status));
    return EXIT.OK;
  }
  const neededBy = status.patches.find((patch) => patch.id === patchId)?.neededBy ?? [];
  if (neededBy.length > 0) {
    throw new CliError(
      'PATCH_STILL_NEEDED',
      `${plural(neededBy.length, 'open run')} may still take the old branch of ${patchId}: ${neededBy.slice(0, 10).join(', ')}${neededBy.length > 10 ? ', …' : ''}`,
      'keep the patch until they end (`tideline upgrade status` lists them)',
    );
  }
  ctx.stdout.write(
    ctx.globals.json
      ? `${JSON.stringify({ patch: patchId, neededBy: [], openRuns: status.openRuns })}\n`
      : `no open run needs ${patchId} (${plural(status.openRuns, 'open run')} read): it can be retired\n`,
  );
  return EXIT.OK;
}

export const upgradeCommand: Command = async (argv, ctx) => {
  const at = commandWordIndex(argv, { endAtDoubleDash: false });
  const sub = at === -1 ? undefined : argv[at];
  if (sub === undefined) {
    parseCommand(UPGRADE_SPEC, argv, ctx);
    throw new CliError('CLI_USAGE', 'missing the subcommand', 'status (see `tideline upgrade --help`)');
  }
  if (sub !== 'status') {
    throw new CliError(
      'CLI_USAGE',
      `unknown upgrade subcommand "${sub}"`,
      'the only one is `tideline upgrade status`',
    );
  }
  return upgradeStatus([...argv.slice(0, at), ...argv.slice(at + 1)], ctx);
};
