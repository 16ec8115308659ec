// `tideline schedule pause|unpause|trigger|delete NAME`. A trigger starts a run now (subject to
// the schedule's overlap policy) and reports the run it started, so it can be followed.
import type { ScheduleHandle } from '@temporalio/client';
import { parseCommand } from '../args';
import type { CliContext } from '../context';
import { EXIT } from '../errors';
import { cliCommand } from '../output/run-report';
import { withTemporal, type TemporalSession } from '../temporal';
import { checkScheduleName, explainScheduleError, namedSpec, overlapName } from './schedule-common';

export const PAUSE_SPEC = namedSpec(
  'pause',
  'pause a schedule: no runs start until it is unpaused (running ones go on)',
  { note: { type: 'string' } },
  [['--note TEXT', 'why (shown by describe and list)']],
  ["tideline schedule pause stop-dev-nightly --note 'release freeze until Monday'"],
);
export const UNPAUSE_SPEC = namedSpec(
  'unpause',
  'unpause a schedule',
  { note: { type: 'string' } },
  [['--note TEXT', 'replaces the note (without it, the pause note stays: it says why it was paused)']],
  ['tideline schedule unpause stop-dev-nightly'],
);
export const TRIGGER_SPEC = namedSpec(
  'trigger',
  'start a run of the schedule now',
  {},
  [],
  [
    'tideline schedule trigger stop-dev-nightly',
    'tideline status $(tideline schedule trigger stop-dev-nightly --json | jq -r .workflowId)',
  ],
  [
    "The schedule's overlap policy applies: with skip (the default) nothing starts while a run of it is still running.",
  ],
);
export const DELETE_SPEC = namedSpec(
  'delete',
  'delete a schedule (runs it started go on)',
  {},
  [],
  ['tideline schedule delete stop-dev-nightly'],
);

type Spec = typeof PAUSE_SPEC | typeof UNPAUSE_SPEC | typeof TRIGGER_SPEC | typeof DELETE_SPEC;

/** Parses `SUB NAME [options]`, connects, and runs `action` on the schedule's handle. */
async function onSchedule(
  spec: Spec,
  argv: string[],
  ctx: CliContext,
  action: (
    handle: ScheduleHandle,
    name: string,
    values: { note?: string },
    session: TemporalSession,
  ) => Promise<number>,
): Promise<number> {
  const parsed = parseCommand<Spec['options']>(spec, argv, ctx);
  const name = checkScheduleName(parsed.positionals[0] as string);
  return withTemporal(ctx, async (session) => {
    try {
      return await action(
        session.client.schedule.getHandle(name),
        name,
        parsed.values as { note?: string },
        session,
      );
    } catch (error) {
      throw explainScheduleError(error, name, session.target) ?? error;
    }
  });
}

function report(ctx: CliContext, json: Record<string, unknown>, text: string): number {
  ctx.stdout.write(ctx.globals.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  return EXIT.OK;
}

export function schedulePause(argv: string[], ctx: CliContext): Promise<number> {
  return onSchedule(PAUSE_SPEC, argv, ctx, async (handle, name, values) => {
    const note = values.note ?? 'paused with tideline';
    await handle.pause(note);
    return report(ctx, { name, paused: true, note }, `paused schedule ${name} (${note})`);
  });
}

export function scheduleUnpause(argv: string[], ctx: CliContext): Promise<number> {
  return onSchedule(UNPAUSE_SPEC, argv, ctx, async (handle, name, values) => {
    // Temporal sets the note on every unpause (and unpauses only with a non-empty one): repeat
    // the pause note unless a new one is given, so the reason it was paused is not lost.
    const kept = (await handle.describe()).state.note;
    const note = values.note ?? (kept !== undefined && kept !== '' ? kept : 'unpaused with tideline');
    await handle.unpause(note);
    const description = await handle.describe();
    const next = description.info.nextActionTimes[0]?.toISOString() ?? null;
    return report(
      ctx,
      { name, paused: false, note, nextRun: next },
      `unpaused schedule ${name}${next ? `; next run ${next}` : ''}`,
    );
  });
}

export function scheduleDelete(argv: string[], ctx: CliContext): Promise<number> {
  return onSchedule(DELETE_SPEC, argv, ctx, async (handle, name) => {
    await handle.delete();
    return report(ctx, { name, deleted: true }, `deleted schedule ${name} (runs it started go on)`);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** How long `trigger` looks for the run it started before it answers without one. */
const TRIGGER_LOOKUP_MS = 5_000;

export function scheduleTrigger(argv: string[], ctx: CliContext): Promise<number> {
  return onSchedule(TRIGGER_SPEC, argv, ctx, async (handle, name) => {
    const before = await handle.describe();
    const known = new Set(before.info.recentActions.map((action) => action.action.workflow.workflowId));
    await handle.trigger(before.policies.overlap);
    // The schedule records the run it started a moment later; find it to say what to follow.
    const deadline = Date.now() + TRIGGER_LOOKUP_MS;
    let started: { workflowId: string; runId: string } | undefined;
    while (started === undefined && Date.now() < deadline) {
      const after = await handle.describe();
      const fresh = after.info.recentActions.find((action) => !known.has(action.action.workflow.workflowId));
      if (fresh)
        started = {
          workflowId: fresh.action.workflow.workflowId,
          runId: fresh.action.workflow.firstExecutionRunId,
        };
      else if (after.info.numActionsSkippedOverlap > before.info.numActionsSkippedOverlap) break;
      else await sleep(200);
    }
    if (started === undefined) {
      return report(
        ctx,
        { name, triggered: true, workflowId: null, runId: null },
        `triggered schedule ${name}; no new run started (a run of it is still going and the overlap policy is ${overlapName(before.policies.overlap)})`,
      );
    }
    return report(
      ctx,
      { name, triggered: true, ...started },
      `triggered schedule ${name}: started run ${started.workflowId}\nfollow it: ${cliCommand(ctx, ['status', started.workflowId])}`,
    );
  });
}
