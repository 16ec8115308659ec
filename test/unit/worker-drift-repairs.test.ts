// The worker's side of a watcher's repairs: `drift.repairAs` is checked at start (rules with
// `repair.auto` need it; its key must load and be registered for its name), and a repair starts
// only what the worker's own state file and a fresh check allow — a rule without `repair.auto`,
// or a finding that is gone, starts nothing — as a run signed for its workflow id that admission
// verifies, started at most once however often the start is retried. The configuration file's
// `repairAs` is read relative to it and shown by name only; Slack hears a repair's outcome. The
// Temporal client is a fake here; test/integration/workflows-drift-auto-repair.test.ts runs it for real.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { definitionHash } from '../../activities/definition-hash';
import { inspect } from 'node:util';
import type { Client } from '@temporalio/client';
import { publicKeyText } from '../../activities/approval-keys';
import { verifyStarter } from '../../activities/approval-verify';
import { driftSlackMessage, repairOutcomeText } from '../../activities/drift-watch';
import type { DriftRepairInput } from '../../contract/drift-watch-messages';
import type { RunbookWorkflowInput } from '../../contract/run-messages';
import type { JsonValue } from '../../dsl/expressions';
import { checkDrift } from '../../state/drift-check';
import type { LoadedState } from '../../state/state-file';
import { startDriftRepair, type RepairIdentity } from '../../worker/drift-repairs';
import { describeWorkerConfig, loadWorkerConfig } from '../../worker/config';
import { loadDriftStates } from '../../worker/drift-states';

const RUNBOOKS = path.join(__dirname, '../../runbooks');

const STATE = `apiVersion: tideline/v1
kind: State
name: fleet
rules:
  - name: has-ha
    select: { environment: PROD }
    expect: has(service.ha_replicas) && service.ha_replicas.replica_count >= 1
    repair:
      runbook: ${path.join(RUNBOOKS, 'enable-ha.yaml')}
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}' }
      auto: true
  - name: has-pooler
    select: { environment: PROD }
    expect: has(service.connection_pooler)
    repair:
      runbook: ${path.join(RUNBOOKS, 'enable-pooler.yaml')}
      with: { project_id: '\${{ project_id }}', service_id: '\${{ service.service_id }}' }
`;

const SERVICES: JsonValue[] = [
  { service_id: 's1', name: 'orders', metadata: { environment: 'PROD' }, ha_replicas: { replica_count: 0 } },
];

let dir: string;
let keys: { publicKey: string; privateKey: string };
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-drift-repairs-'));
  writeFileSync(path.join(dir, 'fleet.state.yaml'), STATE);
  keys = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  writeFileSync(path.join(dir, 'repairer.pem'), keys.privateKey, { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const registered = () => new Map([['drift-bot', [publicKeyText(createPublicKey(keys.publicKey))]]]);

function load(repairAs?: { by: string; key: string }, approvalKeys = registered()) {
  const problems: string[] = [];
  const notices: string[] = [];
  const drift = loadDriftStates(
    { states: ['fleet.state.yaml'], ...(repairAs !== undefined && { repairAs }) },
    new Set(),
    dir,
    problems,
    approvalKeys,
    (line) => notices.push(line),
  );
  return { drift, problems, notices };
}

test('rules with repair.auto and no drift.repairAs stop the worker, naming the rules', () => {
  expect(load().problems).toEqual([
    expect.stringMatching(
      /^drift: fleet\.state\.yaml has rules that repair automatically \(has-ha\) but drift\.repairAs is not set/,
    ),
  ]);
});

test('a repairAs key that does not load, or is not registered for its name, stops the worker', () => {
  expect(load({ by: 'drift-bot', key: 'missing.pem' }).problems).toEqual([
    expect.stringMatching(
      /^drift\.repairAs\.key: missing\.pem is not a readable Ed25519 private key \(ENOENT\)/,
    ),
  ]);
  expect(load({ by: 'drift-bot', key: 'repairer.pem' }, new Map()).problems).toEqual([
    expect.stringMatching(
      /^drift\.repairAs: the public key of repairer\.pem \(key id [0-9a-f]{16}\) is not registered for drift-bot/,
    ),
  ]);
  const { drift, problems, notices } = load({ by: 'drift-bot', key: 'repairer.pem' });
  expect(problems).toEqual([]);
  expect(notices).toEqual([]); // 0600
  expect(drift?.repairAs?.by).toBe('drift-bot');
});

// Warned about, not refused: as the worker treats its config file with a secret and its payload
// key file, and as the CLI treats an operator's approval key.
test('a repairAs key file other users can read is warned about, like an approval key, and still loads', () => {
  const key = path.join(dir, 'repairer.pem');
  for (const mode of [0o640, 0o604]) {
    chmodSync(key, mode);
    const { drift, problems, notices } = load({ by: 'drift-bot', key: 'repairer.pem' });
    expect(problems).toEqual([]);
    expect(drift?.repairAs?.by).toBe('drift-bot');
    expect(notices).toEqual([
      `tideline: warning: drift.repairAs key ${key} (it signs repair runs) is readable by other users; run: chmod 600 ${key}`,
    ]);
    expect(notices.join('\n')).not.toContain('PRIVATE KEY');
  }
});

interface Started {
  workflowId: string;
  workflowIdReusePolicy: string;
  taskQueue: string;
  args: [RunbookWorkflowInput];
}

/** A client whose starts are recorded; a second start of one id fails as Temporal's does. */
function fakeClient() {
  const started: Started[] = [];
  const client = {
    workflow: {
      start: (_type: string, options: Started) => {
        if (started.some((s) => s.workflowId === options.workflowId)) {
          const error = new Error('already started');
          error.name = 'WorkflowExecutionAlreadyStartedError';
          return Promise.reject(error);
        }
        started.push(options);
        return Promise.resolve({});
      },
      getHandle: (workflowId: string) => ({
        describe: () => {
          if (started.some((s) => s.workflowId === workflowId))
            return Promise.resolve({ status: { name: 'RUNNING' } });
          const error = new Error(`no run ${workflowId}`);
          error.name = 'WorkflowNotFoundError';
          return Promise.reject(error);
        },
      }),
    },
  } as unknown as Client;
  return { client, started };
}

function repairer() {
  const { drift } = load({ by: 'drift-bot', key: 'repairer.pem' });
  const state = drift?.states.get('fleet') as LoadedState;
  const identity = drift?.repairAs as RepairIdentity;
  let services = SERVICES;
  const check = async (loaded: LoadedState) => ({
    report: await checkDrift(loaded, 'p1', () => Promise.resolve(services)),
    services,
  });
  const { client, started } = fakeClient();
  const repair = (input: Partial<DriftRepairInput> = {}) =>
    startDriftRepair(
      state,
      check,
      identity,
      { client, taskQueue: 'q' },
      {
        state: 'fleet',
        workflowId: 'drift-watch-fleet-repair-1-1',
        service: { id: 's1', name: 'orders' },
        runbook: path.join(RUNBOOKS, 'enable-ha.yaml'),
        rules: ['has-ha'],
        ...input,
      },
    );
  return { repair, started, setServices: (next: JsonValue[]) => (services = next) };
}

test('starts the planned repair once, signed as repairAs for its workflow id', async () => {
  const { repair, started } = repairer();
  const workflowId = expect.stringMatching(/^repair-fleet-orders-[0-9a-f]{16}-1$/);
  expect(await repair()).toEqual({ started: true, workflowId });
  // A retried start (the first one's answer lost) finds the run there: still one run, the same id.
  const [first] = started;
  expect(await repair()).toEqual({ started: true, workflowId: first!.workflowId });
  expect(started).toHaveLength(1);
  const [run] = started;
  expect(run).toMatchObject({ workflowId, workflowIdReusePolicy: 'REJECT_DUPLICATE', taskQueue: 'q' });
  const input = run!.args[0];
  expect(input.definition.name).toBe('enable-ha');
  expect(input.inputs).toMatchObject({ project_id: 'p1', service_id: 's1' });
  const admitted = {
    taskQueue: 'q',
    definitionHash: definitionHash(input.definition),
    givenInputs: input.inputs,
  };
  const verdict = verifyStarter(
    { keys: registered(), groups: new Map() },
    { workflowId: run!.workflowId, runStartedAt: Date.now(), admitted },
    input.startedBy!,
  );
  expect(verdict).toEqual({ by: 'drift-bot', verified: true });
  // The signature is for this run only, and for what it starts.
  const settings = { keys: registered(), groups: new Map() };
  expect(verifyStarter(settings, { workflowId: 'other', admitted }, input.startedBy!).verified).toBe(false);
  const retargeted = { ...admitted, givenInputs: { ...input.inputs, service_id: 's2' } };
  expect(
    verifyStarter(
      settings,
      { workflowId: run!.workflowId, runStartedAt: Date.now(), admitted: retargeted },
      input.startedBy!,
    ).verified,
  ).toBe(false);
});

test('a rule without repair.auto, another runbook, or a finding gone starts nothing', async () => {
  const { repair, started, setServices } = repairer();
  expect(
    await repair({ rules: ['has-pooler'], runbook: path.join(RUNBOOKS, 'enable-pooler.yaml') }),
  ).toMatchObject({ started: false, code: 'REPAIR_NOT_NEEDED' });
  expect(await repair({ runbook: path.join(RUNBOOKS, 'enable-pooler.yaml') })).toMatchObject({
    started: false,
    code: 'REPAIR_NOT_NEEDED',
  });
  setServices([{ ...(SERVICES[0] as object), ha_replicas: { replica_count: 1 } }]);
  expect(await repair()).toMatchObject({ started: false, code: 'REPAIR_NOT_NEEDED' });
  expect(started).toEqual([]);
});

test('a state the worker does not watch fails for good', async () => {
  const { client } = fakeClient();
  const identity = load({ by: 'drift-bot', key: 'repairer.pem' }).drift?.repairAs as RepairIdentity;
  await expect(
    startDriftRepair(
      undefined,
      () => Promise.reject(new Error('not called')),
      identity,
      { client, taskQueue: 'q' },
      {
        state: 'other',
        workflowId: 'w',
        service: { id: 's1', name: 'orders' },
        runbook: 'x',
        rules: ['has-ha'],
      },
    ),
  ).rejects.toMatchObject({ type: 'DRIFT_STATE_UNKNOWN', nonRetryable: true });
});

test('the configuration file names repairAs: its key is read relative to the file, never printed', () => {
  const file = path.join(dir, 'worker.yaml');
  writeFileSync(
    file,
    `cloud:
  baseUrl: https://api.example.com/public/api/v1
  projects: { p1: { accessKey: AK, secretKey: SK } }
approvals:
  keys: { drift-bot: '${publicKeyText(createPublicKey(keys.publicKey))}' }
drift:
  states: [fleet.state.yaml]
  repairAs: { by: drift-bot, key: repairer.pem }
`,
    { mode: 0o600 },
  );
  const notices: string[] = [];
  const loaded = loadWorkerConfig({ env: { TIDELINE_CONFIG: file }, notice: (line) => notices.push(line) });
  expect(loaded.drift?.repairAs?.by).toBe('drift-bot');
  expect(notices).toEqual([]);
  // The worker's notices (stderr at start) carry the key file's warning too.
  chmodSync(path.join(dir, 'repairer.pem'), 0o644);
  loadWorkerConfig({ env: { TIDELINE_CONFIG: file }, notice: (line) => notices.push(line) });
  expect(notices).toEqual([expect.stringMatching(/drift\.repairAs key .*repairer\.pem .*chmod 600/)]);
  expect(describeWorkerConfig(loaded).drift).toEqual({
    states: ['fleet'],
    notify: [],
    repairAs: 'drift-bot',
  });
  expect(inspect(loaded, { depth: 10 })).not.toContain('PRIVATE KEY');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/ {2}repairAs: .*\n/, ''), { mode: 0o600 });
  expect(() => loadWorkerConfig({ env: { TIDELINE_CONFIG: file }, notice: () => undefined })).toThrow(
    /drift\.repairAs is not set/,
  );
});

test('a Slack target hears each repair with its outcome', () => {
  const repair = {
    workflowId: 'drift-watch-fleet-repair-3-1',
    runbook: 'enable-ha.yaml',
    service: { id: 's1', name: 'ledger' },
    rules: ['has-ha'],
    check: 3,
  };
  const message = driftSlackMessage({
    id: 'w/4/repair-outcome',
    event: 'repair-outcome',
    state: 'fleet',
    projectId: 'p',
    findings: [],
    repairs: [{ ...repair, outcome: { kind: 'refused', code: 'POLICY_DENIED', reason: 'policy x: no' } }],
    open: 1,
    workflowId: 'w',
    at: '2027-10-01T00:00:00.000Z',
  });
  expect(message.text.split('\n')).toEqual([
    ':clipboard: drift repairs in `fleet` (project `p`):',
    '• `enable-ha.yaml` for `ledger` (has-ha), run drift-watch-fleet-repair-3-1: refused by the worker [POLICY_DENIED]: policy x: no',
    '1 finding(s) open',
  ]);
  expect(repairOutcomeText({ kind: 'running' })).toBe('running');
});

test('a catalogue worker does not start when an auto repair runbook is not in its catalogue', () => {
  const file = path.join(dir, 'worker.yaml');
  const config = (runbooks: string[]) => `cloud:
  baseUrl: https://api.example.com/public/api/v1
  projects: { p1: { accessKey: AK, secretKey: SK } }
approvals:
  keys: { drift-bot: '${publicKeyText(createPublicKey(keys.publicKey))}' }
catalog:
  runbooks: [${runbooks.map((name) => path.join(RUNBOOKS, name)).join(', ')}]
drift:
  states: [fleet.state.yaml]
  repairAs: { by: drift-bot, key: repairer.pem }
`;
  const load = () => loadWorkerConfig({ env: { TIDELINE_CONFIG: file }, notice: () => undefined });
  writeFileSync(file, config(['enable-pooler.yaml']), { mode: 0o600 });
  expect(load).toThrow(
    /rule has-ha repairs automatically with .*enable-ha\.yaml, which is not in this worker's catalogue/,
  );
  writeFileSync(file, config(['enable-pooler.yaml', 'enable-ha.yaml']), { mode: 0o600 });
  expect(load().drift?.repairAs?.by).toBe('drift-bot');
});
