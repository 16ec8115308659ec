// Where a case's run goes: the suite's worker, or — for a case that needs what a worker is
// configured with (the file's `governance`, a `starter` or `people` with groups, a `clock`) — a
// worker of its own. Each person gets a fresh Ed25519 key that only this worker registers; the
// run's start is signed with the starter's, as `tideline run --by NAME` signs it, so the worker
// verifies who started it, and the drivers sign scripted approvals with the approver's.
import { generateKeyPairSync, type KeyObject, type KeyPairKeyObjectResult } from 'node:crypto';
import type { ApprovalSettings, Clock } from '../activities/deps';
import { publicKeyText } from '../activities/approval-keys';
import type { SignedStart } from '../contract/approval-messages';
import { signStart } from '../activities/approval-signatures';
import { parseDuration } from '../dsl/durations';
import type { LoadedCase } from './test-file-loader';
import type { RunbookDefinition } from '../dsl/definition';
import type { TestStack } from './test-stack';

export interface CaseWorker {
  taskQueue: string;
  /** The case's starter, signed for this run's definition and inputs (with their key, if any). */
  startedBy?: (definition: RunbookDefinition, inputs: unknown) => SignedStart;
  /** The private key the worker registered for a person of the case, if it knows them. */
  keyOf(name: string): KeyObject | undefined;
  stop(): Promise<void>;
}

/** The worker's time: `at` when the case starts, running on in real time from there. */
export function clockFrom(at: number, started = Date.now()): Clock {
  return { now: () => at + (Date.now() - started) };
}

/**
 * A rehearsal's stepped time: the first reading is `at`, each later one `stepMs` after the one
 * before, and a wait for a closed window moves it to the window's opening and lasts no real time.
 * Policies read it once per check, so what a run sees depends only on its order of checks.
 */
export function steppedClock(at: number, stepMs: number): Clock {
  let last: number | undefined;
  return {
    now() {
      last = last === undefined ? at : last + stepMs;
      return last;
    },
    waitUntil(until) {
      last = Math.max(last ?? at, until);
      return 0;
    },
  };
}

function caseClock(clock: NonNullable<LoadedCase['clock']>): Clock {
  return typeof clock === 'string'
    ? clockFrom(Date.parse(clock))
    : steppedClock(Date.parse(clock.at), parseDuration(clock.perCheck));
}

/** Everyone the case's worker knows (its starter and its `people`), each with their groups. */
function peopleOf(testCase: LoadedCase): Map<string, Set<string>> {
  const people = new Map<string, Set<string>>();
  const add = (name: string, groups: readonly string[]) =>
    people.set(name, new Set([...(people.get(name) ?? []), ...groups]));
  if (testCase.starter !== undefined) add(testCase.starter.name, testCase.starter.groups);
  for (const [name, person] of Object.entries(testCase.people ?? {})) add(name, person.groups);
  return people;
}

function approvalSettings(people: Map<string, Set<string>>, keys: Map<string, KeyPairKeyObjectResult>) {
  const groups = new Map<string, string[]>();
  for (const [name, memberOf] of people)
    for (const group of memberOf) groups.set(group, [...(groups.get(group) ?? []), name]);
  const settings: ApprovalSettings = {
    keys: new Map([...keys].map(([name, pair]) => [name, [publicKeyText(pair.publicKey)]])),
    groups,
  };
  return settings;
}

export async function caseWorkerFor(
  stack: TestStack,
  testCase: LoadedCase,
  workflowId: string,
): Promise<CaseWorker> {
  const { governance, starter, clock } = testCase;
  const people = peopleOf(testCase);
  if (governance === undefined && people.size === 0 && clock === undefined)
    return { taskQueue: stack.taskQueue, stop: async () => undefined, keyOf: () => undefined };
  const keys = new Map([...people.keys()].map((name) => [name, generateKeyPairSync('ed25519')]));
  const worker = await stack.caseWorker({
    ...(governance !== undefined && { governance }),
    ...(people.size > 0 && { approvals: approvalSettings(people, keys) }),
    ...(clock !== undefined && { clock: caseClock(clock) }),
  });
  const keyOf = (name: string) => keys.get(name)?.privateKey;
  return {
    ...worker,
    keyOf,
    ...(starter !== undefined && {
      startedBy: (definition: RunbookDefinition, inputs: unknown) =>
        signStart(keyOf(starter.name), {
          workflowId,
          taskQueue: worker.taskQueue,
          by: starter.name,
          definition,
          inputs,
        }),
    }),
  };
}
