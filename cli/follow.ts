// Follows a run until it ends (or the user presses Ctrl-C, which detaches and leaves the run
// going): observes it a few times a second, shows progress, then prints the outcome. Returns the
// exit code: 0 when the run succeeded, 1 otherwise, 0 after detaching.
import type { WorkflowHandle } from '@temporalio/client';
import type { CliContext } from './context';
import { EXIT } from './errors';
import { LineProgressView, LiveProgressView, type ProgressView } from './output/progress-views';
import { heldLines } from './output/held-view';
import { cliCommand, renderOutcome, runJson } from './output/run-report';
import { styleFor, type Style } from './output/style';
import { observeRun, readOutcome, type RunOutcome, type RunSnapshot } from './run-observer';
import { lockWaitOf, recordedLockWait, trackActivities } from './run-watch';
import { explainTemporalError, type TemporalSession } from './temporal';

export interface FollowOptions {
  showSecrets: boolean;
  /** Observe once and report, without waiting for the end. */
  once?: boolean;
  /** The exit code for how the run ended (default: 0 when it succeeded, else 1). */
  exitCodeFor?: (outcome: RunOutcome) => number;
}

/** How long the CLI keeps trying while Temporal is unreachable mid-run (e.g. a server restart). */
const RECONNECT_GRACE_MS = 60_000;

function pause(ms: number, interrupted: { value: boolean; wake: Promise<void> }): Promise<void> {
  if (interrupted.value) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void interrupted.wake.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function followRun(
  ctx: CliContext,
  session: TemporalSession,
  handle: WorkflowHandle,
  options: FollowOptions,
): Promise<number> {
  const style = styleFor(ctx);
  const live = ctx.stdout.isTTY === true;
  const view: ProgressView | undefined = ctx.globals.json
    ? undefined
    : live
      ? new LiveProgressView(ctx, style)
      : new LineProgressView(ctx, style);
  const interrupted = { value: false, wake: ctx.interrupted.then(() => void (interrupted.value = true)) };
  const interval = live ? 500 : 1_000;

  let snapshot: RunSnapshot | undefined;
  let unreachableSince: number | undefined;
  /** The lock the run was last seen queued on, for the final report's timing. */
  let lockSeen: string | undefined;
  while (!interrupted.value) {
    try {
      const observed = await Promise.race([
        observeRun(session, handle),
        interrupted.wake.then(() => undefined),
      ]);
      if (observed === undefined) break;
      snapshot = trackActivities(snapshot, observed, Date.now());
      lockSeen = observed.progress?.waitingForLock ?? lockSeen;
      unreachableSince = undefined;
    } catch (error) {
      const explained = explainTemporalError(error, session.target);
      if (explained?.code !== 'TEMPORAL_UNAVAILABLE' || snapshot === undefined) throw explained ?? error;
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > RECONNECT_GRACE_MS) throw explained;
      snapshot = {
        ...snapshot,
        note: `lost the connection to Temporal at ${session.target.address}; retrying`,
      };
    }
    if (snapshot.closed) break;
    view?.update(snapshot, Date.now());
    if (snapshot.progress?.status === 'held') return reportHeld(ctx, snapshot, view, style, options);
    if (options.once) {
      view?.stop();
      if (ctx.globals.json) {
        const json = runJson(
          {
            workflowId: snapshot.workflowId,
            runId: snapshot.runId,
            status: snapshot.progress?.status ?? 'running',
            outputs: {},
            secretOutputs: [],
            ...(snapshot.progress ? { progress: snapshot.progress } : {}),
          },
          options.showSecrets,
        );
        ctx.stdout.write(`${JSON.stringify(json)}\n`);
      } else {
        ctx.stdout.write(style.dim(`follow it: ${cliCommand(ctx, ['status', snapshot.workflowId])}\n`));
      }
      return EXIT.OK;
    }
    await pause(interval, interrupted);
  }

  if (interrupted.value || snapshot === undefined) {
    view?.stop();
    const id = snapshot?.workflowId ?? handle.workflowId;
    if (ctx.globals.json) {
      ctx.stdout.write(
        `${JSON.stringify({ workflowId: id, runId: snapshot?.runId ?? null, status: 'running', detached: true })}\n`,
      );
    } else {
      ctx.stdout.write(`\ndetached; the run goes on. Reattach with: ${cliCommand(ctx, ['status', id])}\n`);
    }
    return EXIT.OK;
  }

  const outcome = await readOutcome(session, handle, snapshot);
  if (outcome.progress) {
    // What the run recorded, when it did (also for a run that ended before this command looked);
    // else what this command saw while watching.
    const lockWait =
      outcome.progress.lockWaits !== undefined
        ? recordedLockWait(outcome.progress)
        : lockSeen !== undefined
          ? lockWaitOf(outcome.progress, lockSeen)
          : undefined;
    if (lockWait !== undefined) outcome.lockWait = lockWait;
  }
  if (view) {
    if (outcome.progress)
      view.update({ ...snapshot, progress: outcome.progress, activities: {} }, Date.now());
    view.stop();
    ctx.stdout.write(renderOutcome(ctx, outcome, style, options.showSecrets));
  } else {
    ctx.stdout.write(`${JSON.stringify(runJson(outcome, options.showSecrets))}\n`);
  }
  if (options.exitCodeFor) return options.exitCodeFor(outcome);
  return outcome.status === 'succeeded' ? EXIT.OK : EXIT.FAILED;
}

/** A held run: show the failure and the commands that act on it, and stop following (exit 5). */
function reportHeld(
  ctx: CliContext,
  snapshot: RunSnapshot,
  view: ProgressView | undefined,
  style: Style,
  options: FollowOptions,
): number {
  view?.stop();
  const progress = snapshot.progress!;
  if (ctx.globals.json) {
    const json = runJson(
      {
        workflowId: snapshot.workflowId,
        runId: snapshot.runId,
        status: 'held',
        outputs: {},
        secretOutputs: [],
        progress,
      },
      options.showSecrets,
    );
    ctx.stdout.write(`${JSON.stringify(json)}\n`);
  } else {
    ctx.stdout.write(
      `${[
        `${style.yellow('⏸')} ${style.bold(progress.runbook)} is held at a failed step (run ${snapshot.workflowId})`,
        ...heldLines(ctx, snapshot.workflowId, progress, style, Date.now()),
        style.dim(`  see it again: ${cliCommand(ctx, ['status', snapshot.workflowId, '--once'])}`),
      ].join('\n')}\n`,
    );
  }
  return EXIT.HELD;
}
