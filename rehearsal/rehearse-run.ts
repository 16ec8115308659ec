// One rehearsal of a run, as `tideline mcp`'s rehearse tool asks for it: the runbook with its
// inputs on a local cloud of its own (in this process, on a free loopback port) that starts with
// the resources given (names and shapes, never secrets), with faults injected as a test file
// declares them. It is a test case built on the fly and run by the same machinery as `tideline
// test` (test-stack.ts, case-runner.ts), so a rehearsal and a test see the same cloud and worker.
// A session that rehearses again (an agent rehearses as planned, then with a fault) keeps its
// stack: each rehearsal still has a local cloud and a project of its own on it.
import type { RunbookDefinition } from '../dsl/definition';
import type { RunReport, StepRecord } from '../contract/run-messages';
import { runCase, type CaseResult } from './case-runner';
import type { LoadedCase } from './test-file-loader';
import { TestCase } from './test-file-schema';
import { REHEARSAL_APPROVER, standInScript } from './rehearsal-stand-ins';
import { startTestStack, type TestStack } from './test-stack';

export interface RehearsalRequest {
  definition: RunbookDefinition;
  /**
   * The run's inputs. A reference names what the rehearsal's cloud gave the starting resources:
   * `${{ cloud.project_id }}`, `${{ cloud.vpcs.NAME.id }}`, `${{ cloud.services.NAME.id }}`.
   */
  inputs: Record<string, unknown>;
  /** The starting resources, as a test case's `cloud:` writes them. */
  cloud: unknown;
  /** The faults, as a test case's `faults:` writes them. */
  faults: unknown[];
  /**
   * How the run's approval steps are answered, as a test case's `approvals:` writes them (without
   * `by`: stand-ins of the rehearsal decide, as approvers of every approval step on the
   * rehearsal's own worker; rehearsal-stand-ins.ts). Nothing real is approved; an approval left
   * out waits until its step or the rehearsal times out.
   */
  approvals?: unknown[];
}

export { REHEARSAL_APPROVER };

export interface RehearsalOutcome {
  /** How the run ended; `timed-out` when it did not end in time (waiting for an approval, say). */
  status: RunReport['status'] | 'timed-out';
  failure?: RunReport['failure'];
  steps: StepRecord[];
  /** Requests per operation, with their answers' statuses (faulted ones included). */
  calls: Record<string, { total: number; byStatus: Record<string, number> }>;
  /** The steps that undid another one, and how that went. */
  compensations: { key: string; undoes: string; status: string }[];
  /** Why the rehearsal could not run or end, when it could not. */
  error?: string;
}

export type RehearsalCheck = { ok: true; testCase: LoadedCase } | { ok: false; problems: string[] };

/** The rehearsal as a test case; problems name the field (`cloud.vpcs.0.name`, `faults.1.kind`). */
export function rehearsalCase(request: RehearsalRequest): RehearsalCheck {
  const parsed = TestCase.safeParse({
    name: `rehearsal of ${request.definition.name}`,
    runbook: request.definition.name,
    inputs: request.inputs,
    cloud: request.cloud,
    faults: request.faults,
    approvals: (request.approvals ?? []).map((approval) =>
      typeof approval === 'object' && approval !== null ? { ...approval, by: REHEARSAL_APPROVER } : approval,
    ),
    // A held run cannot be acted on in a rehearsal: a failed step rolls back.
    onFailure: 'rollback',
    expect: { status: 'succeeded' },
  });
  if (!parsed.success)
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`,
      ),
    };
  // Checked as scripted (problems name the agent's own entries), then sent by the stand-ins.
  const script = standInScript(request.definition, parsed.data.approvals);
  return {
    ok: true,
    testCase: {
      ...parsed.data,
      ...script,
      file: '(rehearsal)',
      definition: request.definition,
      locate: () => ({ line: 1, column: 1 }),
    },
  };
}

export function rehearsalOutcome(result: CaseResult): RehearsalOutcome {
  const compensations = result.steps.flatMap((step) =>
    step.compensates === undefined ? [] : [{ key: step.key, undoes: step.compensates, status: step.status }],
  );
  const { ended } = result;
  return {
    status: ended?.status ?? 'timed-out',
    ...(ended?.failure !== undefined && { failure: ended.failure }),
    steps: result.steps,
    calls: ended?.calls ?? {},
    compensations,
    ...(result.error !== undefined && { error: result.error.message }),
  };
}

interface RehearsalOptions {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** How a stack is started (the test stack; a test counts the starts). */
  start?: (env: NodeJS.ProcessEnv, log: (line: string) => void) => Promise<TestStack>;
}

/** A stack and the rehearsals running on it, so a stack set aside closes after its last one. */
interface KeptStack {
  stack: Promise<TestStack>;
  running: number;
  setAside: boolean;
}

/**
 * Rehearsals on one test stack, started at the first and kept for the next until `close()`.
 * Rehearsals may run side by side (cases do in `tideline test`). A stack that failed to start, or
 * under which a rehearsal threw (not a failed run: the machinery itself), is set aside, closed once
 * its rehearsals end, and the next rehearsal starts another.
 */
export class RehearsalStage {
  private kept: KeptStack | undefined;

  constructor(private readonly options: RehearsalOptions) {}

  /** Aborting `signal` ends the rehearsal early, its run terminated (error TEST_CASE_CANCELLED). */
  async rehearse(testCase: LoadedCase, timeoutMs: number, signal?: AbortSignal): Promise<RehearsalOutcome> {
    const kept = (this.kept ??= {
      stack: (this.options.start ?? startTestStack)(this.options.env, this.options.log),
      running: 0,
      setAside: false,
    });
    kept.running += 1;
    try {
      return rehearsalOutcome(await runCase(await kept.stack, testCase, timeoutMs, undefined, signal));
    } catch (error) {
      this.setAside(kept);
      throw error;
    } finally {
      kept.running -= 1;
      if (kept.setAside && kept.running === 0) await closeStack(kept);
    }
  }

  /** Closes the kept stack now: rehearsals still running on it fail. */
  async close(): Promise<void> {
    const kept = this.kept;
    this.kept = undefined;
    if (kept !== undefined) await closeStack(kept);
  }

  private setAside(kept: KeptStack): void {
    kept.setAside = true;
    if (this.kept === kept) this.kept = undefined;
  }
}

async function closeStack(kept: KeptStack): Promise<void> {
  const stack = await kept.stack.catch(() => undefined);
  await stack?.close().catch(() => undefined);
}

/** Runs the rehearsal on a stack of its own, closed when it ends. */
export async function rehearseRun(
  testCase: LoadedCase,
  options: RehearsalOptions & { timeoutMs: number },
): Promise<RehearsalOutcome> {
  const stage = new RehearsalStage(options);
  try {
    return await stage.rehearse(testCase, options.timeoutMs);
  } finally {
    await stage.close();
  }
}
