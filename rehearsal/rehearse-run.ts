// One rehearsal of a run, as `tideline mcp`'s rehearse tool asks for it: the runbook with its
// inputs on a local cloud of its own (in this process, on a free loopback port) that starts with
// the resources given (names and shapes, never secrets), with faults injected as a test file
// declares them. It is a test case built on the fly and run by the same machinery as `tideline
// test` (test-stack.ts, case-runner.ts), so a rehearsal and a test see the same cloud and worker.
import type { RunbookDefinition } from '../dsl/definition';
import type { RunReport, StepRecord } from '../contract/run-messages';
import { runCase, type CaseResult } from './case-runner';
import type { LoadedCase } from './test-file-loader';
import { TestCase } from './test-file-schema';
import { startTestStack } from './test-stack';

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
   * `by`: a stand-in of the rehearsal decides). Nothing real is approved; an approval left out
   * waits until its step or the rehearsal times out.
   */
  approvals?: unknown[];
}

/** Who answers a rehearsal's approvals: a stand-in, not a person. */
export const REHEARSAL_APPROVER = 'rehearsal-stand-in';

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
  return {
    ok: true,
    testCase: {
      ...parsed.data,
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

/** Runs the rehearsal on a stack of its own, closed when it ends. */
export async function rehearseRun(
  testCase: LoadedCase,
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; log: (line: string) => void },
): Promise<RehearsalOutcome> {
  const stack = await startTestStack(options.env, options.log);
  try {
    return rehearsalOutcome(await runCase(stack, testCase, options.timeoutMs));
  } finally {
    await stack.close().catch(() => undefined);
  }
}
