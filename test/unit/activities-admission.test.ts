// The worker's admission of a run (activities/admission.ts `admitRun`): the catalogue decides which
// definitions run, the start signature decides who started it, and the policies evaluated at the
// start may deny it, refuse it for a closed window, or make it wait.
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { admitRun, createAdmitRunActivity } from '../../activities/admission';
import { publicKeyText } from '../../activities/approval-keys';
import { definitionHash } from '../../activities/definition-hash';
import type { ApprovalSettings, CatalogSettings, NotificationSettings } from '../../activities/deps';
import { signScheduleStart, signStart } from '../../activities/approval-signatures';
import type { LiveSchedule, StartLedger } from '../../activities/start-once';
import type { AdmitRunInput } from '../../contract/admission-messages';
import type { RunbookDefinition } from '../../dsl/definition';
import { loadRunbookFile } from '../../dsl/loader';
import type { CompiledGovernance } from '../../dsl/policies';
import { Secret } from '../../cloud/redact';
import { compile as governance } from '../helpers/policy-fixtures';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');
const resize = loadRunbookFile(path.join(RUNBOOKS, 'resize-with-rollback.yaml'));
const rotate = loadRunbookFile(path.join(RUNBOOKS, 'rotate-password.yaml'));
const RESIZE_HASH = definitionHash(resize);

const alice = generateKeyPairSync('ed25519');
const mallory = generateKeyPairSync('ed25519');
const approvals: ApprovalSettings = {
  keys: new Map([
    ['alice', [publicKeyText(alice.publicKey)]],
    ['mallory', [publicKeyText(mallory.publicKey)]],
  ]),
  groups: new Map([
    ['dba', ['alice']],
    ['ops', ['bob', 'alice']],
    ['dev', ['bob']],
  ]),
};
const catalog: CatalogSettings = {
  mode: 'catalog',
  entries: new Map([
    [RESIZE_HASH, { name: 'resize-with-rollback', file: 'runbooks/resize-with-rollback.yaml' }],
  ]),
};
const development: CatalogSettings = { mode: 'development', entries: new Map() };
const WORKFLOW_ID = 'resize-orders-1';
const TASK_QUEUE = 'tideline';
const GIVEN = { project_id: 'p1', service_id: 's1', cpu_millis: '2000' };

function input(overrides: Partial<AdmitRunInput> = {}): AdmitRunInput {
  return {
    workflowId: WORKFLOW_ID,
    runId: 'run-1',
    taskQueue: TASK_QUEUE,
    runStartedAt: Date.now(),
    definition: resize,
    inputs: { ...GIVEN, deadline: 1_200_000 },
    givenInputs: GIVEN,
    ...overrides,
  };
}

/** A start signed as the CLI signs it: for this run's id, task queue, definition and inputs. */
function signedStart(
  key: Parameters<typeof signStart>[0],
  by: string,
  fields: Partial<{
    workflowId: string;
    taskQueue: string;
    definition: RunbookDefinition;
    inputs: unknown;
  }> = {},
  now?: number,
) {
  return signStart(
    key,
    { workflowId: WORKFLOW_ID, taskQueue: TASK_QUEUE, definition: resize, inputs: GIVEN, by, ...fields },
    now,
  );
}

describe('the catalogue', () => {
  test('refuses a definition whose hash is not listed, saying no runbook of that name is there', () => {
    const admission = admitRun(catalog, approvals, input({ definition: rotate }));
    expect(admission).toMatchObject({
      allowed: false,
      code: 'RUNBOOK_NOT_ALLOWED',
      mode: 'catalog',
      definitionHash: definitionHash(rotate),
      reason:
        'this worker runs only the runbooks of its catalogue: no runbook named rotate-password is in the catalogue',
    });
    expect(admission.catalogEntry).toBeUndefined();
  });

  test('refuses a changed copy of a listed runbook, naming the listed file', () => {
    const edited: RunbookDefinition = { ...resize, description: 'resize, and something else' };
    const admission = admitRun(catalog, approvals, input({ definition: edited }));
    const hash = definitionHash(edited);
    expect(hash).not.toBe(RESIZE_HASH);
    expect(admission.allowed).toBe(false);
    expect(admission.code).toBe('RUNBOOK_NOT_ALLOWED');
    expect(admission.reason).toBe(
      `this worker runs only the runbooks of its catalogue: its content (sha256 ${hash.slice(0, 12)}) ` +
        "differs from the catalogue's resize-with-rollback (runbooks/resize-with-rollback.yaml)",
    );
  });

  test('accepts a listed definition and names its entry', () => {
    const admission = admitRun(catalog, approvals, input());
    expect(admission).toMatchObject({
      allowed: true,
      mode: 'catalog',
      definitionHash: RESIZE_HASH,
      catalogEntry: { name: 'resize-with-rollback', file: 'runbooks/resize-with-rollback.yaml' },
      policies: [],
      checksSteps: false,
    });
    expect(admission.code).toBeUndefined();
  });

  test('development mode accepts any definition, ad hoc', () => {
    const admission = admitRun(development, approvals, input({ definition: rotate }));
    expect(admission).toMatchObject({
      allowed: true,
      mode: 'development',
      definitionHash: definitionHash(rotate),
    });
    expect(admission.catalogEntry).toBeUndefined();
  });
});

describe('the starter', () => {
  const starterOf = (overrides: Partial<AdmitRunInput>) =>
    admitRun(catalog, approvals, input(overrides)).starter;

  test('a start signed with a registered key is verified, with the groups that list the name', () => {
    expect(starterOf({ startedBy: signedStart(alice.privateKey, 'alice') })).toEqual({
      by: 'alice',
      verified: true,
      groups: ['dba', 'ops'],
    });
  });

  test('an unsigned start is an unverified claim, without groups', () => {
    expect(starterOf({ startedBy: signedStart(undefined, 'alice') })).toEqual({
      by: 'alice',
      verified: false,
      reason: 'the start was not signed',
      groups: [],
    });
  });

  test('a start naming no one has no starter', () => {
    expect(starterOf({})).toEqual({
      by: null,
      verified: false,
      reason: 'the start names no starter',
      groups: [],
    });
  });

  test("a start signed with another person's key does not verify", () => {
    expect(starterOf({ startedBy: signedStart(mallory.privateKey, 'alice') })).toEqual({
      by: 'alice',
      verified: false,
      reason:
        'the start signature does not verify (the definition, inputs or task queue differ from what was signed)',
      groups: [],
    });
  });

  test('a start signed for another workflow id does not verify', () => {
    const starter = starterOf({
      startedBy: signedStart(alice.privateKey, 'alice', { workflowId: 'another-run' }),
    });
    expect(starter).toMatchObject({ by: 'alice', verified: false, groups: [] });
    expect(starter.reason).toBe('the start was signed for another run');
  });

  test('a start signature expires 10 minutes after it was made (with a minute of clock skew)', () => {
    const startedBy = signedStart(alice.privateKey, 'alice');
    const signedAt = startedBy.signature?.signedAt ?? 0;
    const starter = starterOf({ startedBy, runStartedAt: signedAt + 12 * 60_000 });
    expect(starter).toMatchObject({ by: 'alice', verified: false, groups: [] });
    expect(starter.reason).toBe('the start signature expired 120s before this run started');
    // Just inside the limit it is still this start's.
    expect(starterOf({ startedBy, runStartedAt: signedAt + 9 * 60_000 }).verified).toBe(true);
  });

  test('a start signature covers the inputs, the definition and the task queue it was made for', () => {
    const startedBy = signedStart(alice.privateKey, 'alice');
    const otherInputs = { ...GIVEN, service_id: 's2', cpu_millis: '16000' };
    const replays: [Partial<AdmitRunInput>, string][] = [
      [
        { givenInputs: otherInputs, inputs: { ...otherInputs, deadline: 1_200_000 } },
        'the start signature does not verify (the definition, inputs or task queue differ from what was signed)',
      ],
      [
        { definition: rotate },
        'the start signature does not verify (the definition, inputs or task queue differ from what was signed)',
      ],
      [{ taskQueue: 'elsewhere' }, `the start was signed for task queue ${TASK_QUEUE}, not elsewhere`],
    ];
    for (const [overrides, reason] of replays)
      expect(starterOf({ startedBy, ...overrides })).toEqual({
        by: 'alice',
        verified: false,
        reason,
        groups: [],
      });
    expect(starterOf({ startedBy }).verified).toBe(true);
  });

  test("an earlier release's start signature (no expiry, nothing of what it starts) is not verified", () => {
    const current = signedStart(alice.privateKey, 'alice');
    const { expiresAt: _expiresAt, taskQueue: _taskQueue, ...older } = current.signature ?? ({} as never);
    const starter = starterOf({ startedBy: { by: 'alice', signature: older } });
    expect(starter.verified).toBe(false);
    expect(starter.reason).toContain('signed by an earlier tideline');
  });

  test('a refused definition still records who started it', () => {
    const admission = admitRun(
      catalog,
      approvals,
      input({
        definition: rotate,
        startedBy: signedStart(alice.privateKey, 'alice', { definition: rotate }),
      }),
    );
    expect(admission.allowed).toBe(false);
    expect(admission.starter).toMatchObject({ by: 'alice', verified: true });
  });
});

describe('policies at the start', () => {
  const NOW = Date.parse('2029-06-01T12:00:00Z');
  const OPENS = Date.parse('2030-01-01T00:00:00Z');
  const calendars = {
    maintenance: {
      kind: 'window',
      timezone: 'UTC',
      from: '2030-01-01T00:00:00Z',
      until: '2030-01-02T00:00:00Z',
    },
  };
  const admit = (g: CompiledGovernance, overrides: Partial<AdmitRunInput> = {}) =>
    admitRun(catalog, approvals, input(overrides), g, NOW);

  test('a deny rule that applies at the start refuses with POLICY_DENIED, naming the rule', () => {
    const g = governance({
      policies: [
        {
          name: 'no-resizes',
          when: "runbook.name == 'resize-with-rollback'",
          effect: 'deny',
          message: 'not today',
        },
      ],
    });
    const admission = admit(g);
    expect(admission).toMatchObject({
      allowed: false,
      code: 'POLICY_DENIED',
      reason: 'policy no-resizes: not today',
      checksSteps: false,
    });
    expect(admission.policies).toEqual([
      { rule: 'no-resizes', effect: 'deny', message: 'not today', stepKey: null, at: NOW },
    ]);
  });

  test('a deny rule exempting the verified dba starter lets it start', () => {
    const g = governance({
      policies: [{ name: 'dba-only', when: 'true', unless: "'dba' in starter.groups", effect: 'deny' }],
    });
    expect(admit(g).code).toBe('POLICY_DENIED');
    const signed = admit(g, { startedBy: signedStart(alice.privateKey, 'alice') });
    expect(signed).toMatchObject({ allowed: true, policies: [] });
  });

  test('a closed window that refuses gives CHANGE_WINDOW_CLOSED', () => {
    const g = governance({
      calendars,
      policies: [
        {
          name: 'in-maintenance',
          when: 'true',
          effect: 'window',
          calendar: 'maintenance',
          outside: 'refuse',
        },
      ],
    });
    const admission = admit(g);
    expect(admission.allowed).toBe(false);
    expect(admission.code).toBe('CHANGE_WINDOW_CLOSED');
    expect(admission.reason).toMatch(/^policy in-maintenance: .*the change is refused/);
    expect(admission.waitUntil).toBeUndefined();
    expect(admission.policies).toEqual([
      expect.objectContaining({
        rule: 'in-maintenance',
        effect: 'window',
        open: false,
        outside: 'refuse',
        stepKey: null,
      }),
    ]);
  });

  test('a closed window that waits admits the run and says until when', () => {
    const g = governance({
      calendars,
      policies: [
        { name: 'in-maintenance', when: 'true', effect: 'window', calendar: 'maintenance', outside: 'wait' },
      ],
    });
    const admission = admit(g);
    expect(admission).toMatchObject({
      allowed: true,
      waitUntil: OPENS,
      waitMs: OPENS - NOW,
      checksSteps: true,
    });
    expect(admission.code).toBeUndefined();
    expect(admission.policies).toEqual([
      expect.objectContaining({
        rule: 'in-maintenance',
        calendar: 'maintenance',
        open: false,
        opensAt: OPENS,
      }),
    ]);
    // Inside the window: admitted with nothing to wait for.
    const inside = admitRun(catalog, approvals, input(), g, OPENS + 3_600_000);
    expect(inside.allowed).toBe(true);
    expect(inside.waitUntil).toBeUndefined();
  });

  test('a require-approval rule that applies at the start lists the quorum the run asks first', () => {
    const g = governance({
      policies: [
        {
          name: 'resizes-need-two',
          when: "runbook.name == 'resize-with-rollback'",
          effect: 'require-approval',
          approvals: { group: 'dba', count: 2 },
        },
        {
          name: 'not-this',
          when: 'false',
          effect: 'require-approval',
          approvals: { group: 'dba', count: 1 },
        },
      ],
    });
    const admission = admit(g);
    expect(admission).toMatchObject({
      allowed: true,
      startApprovals: [{ rule: 'resizes-need-two', group: 'dba', count: 2 }],
    });
    expect(admission.policies).toEqual([
      expect.objectContaining({ rule: 'resizes-need-two', effect: 'require-approval', stepKey: null }),
    ]);
    // None applies: no list at all (a run asks nothing, as before).
    expect(admit(governance({ policies: [] }))).not.toHaveProperty('startApprovals');
  });

  test("a closed window's override at the start is listed as an override: granted, the run does not wait", () => {
    const g = governance({
      calendars,
      policies: [
        {
          name: 'in-maintenance',
          when: 'true',
          effect: 'window',
          calendar: 'maintenance',
          outside: 'wait',
          override: { group: 'dba', count: 1 },
        },
      ],
    });
    expect(admit(g)).toMatchObject({
      allowed: true,
      waitUntil: OPENS,
      startApprovals: [{ rule: 'in-maintenance', group: 'dba', count: 1, override: true }],
    });
  });

  test('checksSteps follows whether some rule is evaluated before steps', () => {
    const startOnly = governance({ policies: [{ name: 'w', when: 'false', effect: 'warn' }] });
    expect(admit(startOnly)).toMatchObject({ allowed: true, checksSteps: false, policies: [] });
    const stepRule = governance({
      policies: [{ name: 'prod', when: "target.environment == 'PROD'", effect: 'deny' }],
    });
    // A step rule is not evaluated at the start (its target would be null there).
    expect(admit(stepRule)).toMatchObject({ allowed: true, checksSteps: true, policies: [] });
  });

  test('a refused definition is refused before any policy', () => {
    const g = governance({ policies: [{ name: 'all', when: 'true', effect: 'deny' }] });
    expect(admit(g, { definition: rotate })).toMatchObject({
      code: 'RUNBOOK_NOT_ALLOWED',
      policies: [],
    });
  });
});

describe('the notification plan', () => {
  const settings: NotificationSettings = {
    targets: new Map([
      ['ops', { type: 'webhook', url: new Secret('http://127.0.0.1:1/ops'), runbooks: ['resize-*'] }],
    ]),
    maxAttempts: 4,
    retryIntervalMs: 500,
  };
  const admit = (notifications: NotificationSettings, definition: RunbookDefinition) =>
    createAdmitRunActivity(
      development,
      approvals,
      undefined,
      undefined,
      notifications,
    )(input({ definition }));

  test('comes with the admission: the targets that hear the run and the events they hear', async () => {
    const admission = await admit(settings, resize);
    expect(admission.allowed).toBe(true);
    expect(admission.notifications).toEqual({
      targets: [{ target: 'ops', events: expect.arrayContaining(['started', 'succeeded', 'failed']) }],
      unknown: [],
      retry: { maximumAttempts: 4, initialIntervalMs: 500 },
    });
  });

  test('is absent when no target hears the run and it names none', async () => {
    const admission = await admit(settings, rotate);
    expect(admission.allowed).toBe(true);
    expect(admission).not.toHaveProperty('notifications');
    expect(await admit({ ...settings, targets: new Map() }, resize)).not.toHaveProperty('notifications');
  });

  test('names the targets the runbook asks for that the worker lacks', async () => {
    const admission = await admit(settings, { ...rotate, notify: [{ target: 'pager' }] });
    expect(admission.notifications).toMatchObject({ targets: [], unknown: ['pager'] });
  });

  test('comes with a refusal too, so the refused run tells its targets how it ended', async () => {
    const refused = await createAdmitRunActivity(
      catalog,
      approvals,
      undefined,
      undefined,
      settings,
    )(input({ definition: { ...resize, description: 'edited' } }));
    expect(refused).toMatchObject({ allowed: false, code: 'RUNBOOK_NOT_ALLOWED' });
    expect(refused.notifications?.targets).toEqual([{ target: 'ops', events: expect.any(Array) }]);
  });
});

describe('a signature starts one thing once', () => {
  /** The ledger a worker shares with the others, held in memory: claims by key, schedules by id. */
  function memoryLedger(
    schedules = new Map<string, LiveSchedule>(),
  ): StartLedger & { claims: Map<string, string> } {
    const claims = new Map<string, string>();
    return {
      claims,
      async claim({ key, runId }) {
        const holder = claims.get(key);
        if (holder === undefined) claims.set(key, runId);
        return holder === undefined || holder === runId ? 'claimed' : 'taken';
      },
      async schedule(scheduleId) {
        return schedules.get(scheduleId);
      },
    };
  }
  const admitWith = (ledger: StartLedger | undefined, overrides: Partial<AdmitRunInput>) =>
    createAdmitRunActivity(catalog, approvals, undefined, undefined, undefined, ledger)(input(overrides));

  test('a verified start is claimed for its run; the same signature under another run is refused', async () => {
    const ledger = memoryLedger();
    const startedBy = signedStart(alice.privateKey, 'alice');
    expect(await admitWith(ledger, { startedBy })).toMatchObject({
      allowed: true,
      starter: { verified: true },
    });
    // A retried admission of the same run still holds its claim.
    expect((await admitWith(ledger, { startedBy })).allowed).toBe(true);
    const replay = await admitWith(ledger, { startedBy, runId: 'run-2' });
    expect(replay).toMatchObject({
      allowed: false,
      code: 'START_REPLAYED',
      reason: 'this start signature was already used by another run',
      starter: { by: 'alice', verified: true },
    });
    expect(ledger.claims.size).toBe(1);
  });

  test('an unsigned or unverified start claims nothing, and a worker without a ledger refuses a signed one', async () => {
    const ledger = memoryLedger();
    expect((await admitWith(ledger, { startedBy: { by: 'alice' } })).allowed).toBe(true);
    expect((await admitWith(ledger, { startedBy: signedStart(mallory.privateKey, 'alice') })).allowed).toBe(
      true,
    );
    expect(ledger.claims.size).toBe(0);
    expect(await admitWith(undefined, { startedBy: signedStart(alice.privateKey, 'alice') })).toMatchObject({
      allowed: false,
      code: 'START_REPLAYED',
    });
  });

  describe("a schedule's signature", () => {
    const SCHEDULE = 'nightly-resize';
    const CREATED = Date.parse('2026-12-01T10:00:00Z');
    const scheduled = signScheduleStart(alice.privateKey, {
      scheduleId: SCHEDULE,
      scheduleCreatedAt: CREATED,
      taskQueue: TASK_QUEUE,
      by: 'alice',
      definition: resize,
      inputs: GIVEN,
    });
    const run = { workflowId: `${SCHEDULE}-2026-12-02T00:00:00Z`, startedBy: scheduled };

    test('starts the runs of the schedule it was made for, as long as it exists', async () => {
      const live = new Map([[SCHEDULE, { createdAt: CREATED, startedBy: scheduled }]]);
      expect(await admitWith(memoryLedger(live), run)).toMatchObject({
        allowed: true,
        starter: { verified: true },
      });
      expect(await admitWith(memoryLedger(), run)).toMatchObject({
        allowed: false,
        code: 'START_REPLAYED',
        reason: `schedule ${SCHEDULE}, which the signature was made for, does not exist`,
      });
    });

    test('is refused for a schedule made again under the same id, or one carrying another signature', async () => {
      const recreated = new Map([[SCHEDULE, { createdAt: CREATED + 60_000, startedBy: scheduled }]]);
      expect((await admitWith(memoryLedger(recreated), run)).reason).toBe(
        `schedule ${SCHEDULE} was created anew after the signature was made for it`,
      );
      const other = new Map([[SCHEDULE, { createdAt: CREATED, startedBy: { by: 'mallory' } }]]);
      expect((await admitWith(memoryLedger(other), run)).reason).toBe(
        `schedule ${SCHEDULE} does not carry this signature`,
      );
    });

    test('does not verify for other inputs or another schedule id', async () => {
      const live = new Map([[SCHEDULE, { createdAt: CREATED, startedBy: scheduled }]]);
      const other = { ...GIVEN, cpu_millis: '8000' };
      const changed = await admitWith(memoryLedger(live), { ...run, givenInputs: other });
      expect(changed.starter).toMatchObject({ verified: false });
      const elsewhere = await admitWith(memoryLedger(live), { ...run, workflowId: 'other-schedule-1' });
      expect(elsewhere.starter.reason).toBe(
        `the schedule signature is for schedule ${SCHEDULE}, not this run`,
      );
    });
  });
});
