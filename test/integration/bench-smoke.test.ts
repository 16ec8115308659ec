// A tiny run of each benchmark in bench/ (seconds, not minutes): the figures come back in the shape
// bench/results/bench.json and chaos.json use, and the numbers are sane — a runbook is slower than
// the lifecycle it waits for, events do not grow with the wait, the fixed 30 s first delay shows
// up as lag, chaos leaves no duplicate and no orphan. The stock worker process is used, so only
// dist/ (built here) is needed, not the bench build.
import { runChaosRound } from '../../bench/chaos/campaign';
import { measureCliStartup } from '../../bench/cli-startup';
import { measureHistoryCost } from '../../bench/history-cost';
import { startDevServer, type DevServer } from '../../bench/lib/dev-server';
import { measureOverhead } from '../../bench/overhead';
import { lifecycleMs } from '../../bench/settings';
import { measureThroughput } from '../../bench/throughput';
import { measureWaitEconomy } from '../../bench/wait-economy';
import { buildDist } from '../helpers/worker-process';

const TINY = { queued: 100, configuring: 300, vpcAttach: 200, pooler: 200 };

let server: DevServer;

beforeAll(async () => {
  await buildDist();
  server = await startDevServer();
}, 240_000);

afterAll(async () => {
  await server?.stop();
});

/**
 * Long enough (3 s) that a 100 ms poll makes several times the calls of waits that back off from
 * 1 s, however loaded the machine; at TINY's 0.8 s the two counts come close.
 */
const OVERHEAD = { queued: 500, configuring: 1_500, vpcAttach: 500, pooler: 500 };

test('overhead: the runbook and the 100 ms script both outlast the lifecycle; the ratio is theirs', async () => {
  const result = await measureOverhead(server, { label: 'short', durations: OVERHEAD }, 1);
  expect(result.scriptSamplesMs).toHaveLength(1);
  expect(result.scriptMs).toBeGreaterThanOrEqual(lifecycleMs(OVERHEAD));
  expect(result.runbookMs).toBeGreaterThanOrEqual(lifecycleMs(OVERHEAD));
  expect(result.ratio).toBeCloseTo(result.runbookMs / result.scriptMs, 2);
  // The script polls every 100 ms; the runbook's waits back off from 1 s: fewer calls.
  expect(result.runbookCalls).toBeGreaterThan(5);
  expect(result.runbookCalls).toBeLessThan(result.scriptCalls);
}, 60_000);

test('throughput: five runs finish, each service READY and PROD, with the worker measured from /proc', async () => {
  const result = await measureThroughput(server, {
    label: 'tiny',
    runs: 5,
    durations: TINY,
    lowerBoundMs: 1_000,
  });
  expect(result).toMatchObject({
    runs: 5,
    succeeded: 5,
    servicesReadyProd: 5,
    worker: 'stock',
    timedOut: false,
  });
  expect(result.endToEndMs.count).toBe(5);
  expect(result.endToEndMs.p95).toBeLessThanOrEqual(result.completionMs);
  expect(result.endToEndMs.p50).toBeGreaterThanOrEqual(lifecycleMs(TINY));
  expect(result.ratio).toBeCloseTo(result.completionMs / 1_000, 1);
  expect(result.workerUsage.peakRssMiB).toBeGreaterThan(30);
  expect(result.workerUsage.cpuSeconds).toBeGreaterThan(0);
  expect(result.apiCalls).toBeGreaterThanOrEqual(5 * 7);
}, 90_000);

test('waits: counted calls match the policies, and a 30 s first delay means a lag of about 20 s', async () => {
  const [wait] = await measureWaitEconomy([{ label: '10 s', waitMs: 10_000, scale: 0.05 }], {
    tideline: 3,
    reference: 2,
  });
  expect(wait!.lagGoalMs).toBe(1_000);
  const byPolicy = new Map(wait!.policies.map((p) => [p.policy, p]));
  expect([...byPolicy.keys()].sort()).toEqual(['fixed-15s-after-30s', 'fixed-1s', 'tideline']);
  for (const policy of wait!.policies) {
    expect(policy.serverCallsPerWait).toBe(policy.callsPerWait);
    expect(policy.lagP50Ms).toBeGreaterThanOrEqual(0);
    expect(policy.model.samples).toBeGreaterThan(1_000);
  }
  expect(byPolicy.get('fixed-15s-after-30s')!.callsPerWait).toBe(1);
  expect(byPolicy.get('fixed-15s-after-30s')!.lagP50Ms).toBeGreaterThan(15_000);
  // How many polls a real wait makes depends on how fast the machine answers them; the model (a
  // virtual clock with instant answers) says what the policy itself asks for.
  expect(byPolicy.get('tideline')!.model.callsPerWait).toBeGreaterThan(3);
  expect(byPolicy.get('tideline')!.callsPerWait).toBeGreaterThan(
    byPolicy.get('fixed-15s-after-30s')!.callsPerWait,
  );
}, 60_000);

test('history: a 1 s and a 10 min create cost the same events, not the same polls', async () => {
  const [short, long] = await measureHistoryCost(server, [
    { label: '1 s', createMs: 1_000, scale: 1 },
    { label: '10 min', createMs: 600_000, scale: 0.005 },
  ]);
  expect(short!.events).toBeGreaterThan(20);
  expect(long!.events).toBe(short!.events);
  expect(long!.eventTypes).toEqual(short!.eventTypes);
  expect(long!.polls).toBeGreaterThan(short!.polls * 2);
}, 90_000);

test('cli start-up: compiled --help and validate are timed', () => {
  const result = measureCliStartup(2);
  expect(result.commands.map((c) => c.command)).toEqual([
    'node -e 0 (Node alone)',
    'tideline --help',
    'tideline validate provision-production-service.yaml',
  ]);
  for (const command of result.commands) {
    expect(command.wallMs.count).toBe(2);
    expect(command.wallMs.min).toBeGreaterThan(0);
  }
}, 60_000);

test('chaos: a dev-server restart under API faults leaves every run as planned, no duplicate, no orphan', async () => {
  const round = await runChaosRound({
    disruption: 'server-restart',
    runs: 3,
    doomed: 1,
    startWindowMs: 300,
    disruptAtMs: [1_500],
    jitterMs: 0,
    durations: { ...TINY, deleting: 300 },
    seed: 7,
    // Generous: a run whose call fails across the restart may sit in a 32 s or 64 s retry backoff
    // on a loaded machine; a run still open at the deadline would count as unfinished.
    timeoutMs: 240_000,
  });
  expect(round).toMatchObject({
    runs: 3,
    doomed: 1,
    completedAsPlanned: 3,
    duplicates: 0,
    orphans: 0,
    disruptions: 1,
  });
  expect(round.unexpected).toEqual([]);
  expect(round.incomplete).toEqual([]);
  expect(round.recoveryMs.count).toBeGreaterThanOrEqual(1);
  expect(Object.values(round.faultsFired).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
}, 270_000);
