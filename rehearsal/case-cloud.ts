// A test case's own local cloud: started in this process with one project (an id of its own, so
// cases can share the worker), filled with the case's starting state through the Cloud API, then
// armed with the case's faults. Transitions of the starting state are skipped by moving the
// cloud's clock forward, not by waiting; the run itself sees the cloud on real time, scaled. It
// notes every name the project held along the way, so an `absent` expectation can be told from a typo.
import { randomInt } from 'node:crypto';
import { createCloudClient, type CloudClient } from '../cloud/client';
import type { Clock } from '../local-cloud/clock';
import type { Durations } from '../local-cloud/config';
import type { Dialect } from '../local-cloud/dialect';
import { parseDuration } from '../dsl/durations';
import type { ActionName } from '../cloud/operations';
import type { FaultRuleInput } from '../local-cloud/fault-schema';
import type { AnswerObserver } from '../local-cloud/api';
import type { Inventory, LocalCloud } from '../local-cloud/server';
import type { StatsView } from '../local-cloud/stats';
import { startLoopbackCloud } from '../stack/local-cloud';
import type { CloudIds } from './cloud-references';
import { faultRule, type TestCase } from './test-file-schema';

/** The pace of a case's cloud: a create takes ~30 ms, so the runbook's own polling sets the pace. */
export const CASE_TIME_SCALE = 0.01;
/** Far beyond any transition of the local cloud at its own pace (5 s at most before scaling). */
const SETTLE_MS = 10 * 60_000;

/** The case's transition durations in the local cloud's terms: milliseconds before scaling. */
function transitionDurations(durations: TestCase['cloud']['durations']): Partial<Durations> {
  return Object.fromEntries(
    Object.entries(durations).map(([name, text]) => [name, parseDuration(text)]),
  ) as Partial<Durations>;
}

export interface CaseCloud {
  readonly cloud: LocalCloud;
  readonly api: CloudClient;
  readonly ids: CloudIds;
  /** Adds the case's faults and starts counting calls: everything after this is the run's. */
  arm(): void;
  /**
   * Ends the run's part: removes the faults (reading the end state must not meet them) and gives
   * the requests per operation since `arm`, and the operations in the order they were answered.
   * Given when the run ended (epoch ms), it also stops the cloud's clock there, so the end state
   * reads as the run left it: a transition the run did not wait for is still under way, however
   * long reading the run's report took.
   */
  disarm(endedAt?: number): { calls: StatsView['byAction']; sequence: ActionName[] };
  /** Every name that existed in the project at some point of the case (its starting state too). */
  existed(): ExistedNames;
  /** Removes the faults, those still to come included, and goes on counting: an operator's fix. */
  fixFaults(): void;
  /** Stops the cloud's clock (no transition ends) until `releaseClock`, which goes on from there. */
  holdClock(): void;
  releaseClock(): void;
  close(): Promise<void>;
}

/** Names that existed: services and VPCs, and each one's replica sets and peerings (by peer VPC id). */
export interface ExistedNames {
  services: ReadonlySet<string>;
  vpcs: ReadonlySet<string>;
  replicaSets: ReadonlyMap<string, ReadonlySet<string>>;
  peerings: ReadonlyMap<string, ReadonlySet<string>>;
}

/** Collects what a project holds after each answer: every change is followed by an answer. */
function existenceLog() {
  const services = new Set<string>();
  const vpcs = new Set<string>();
  const replicaSets = new Map<string, Set<string>>();
  const peerings = new Map<string, Set<string>>();
  const add = (table: Map<string, Set<string>>, owner: string, names: readonly string[]) => {
    const known = table.get(owner) ?? new Set<string>();
    for (const name of names) known.add(name);
    table.set(owner, known);
  };
  return {
    note(inventory: Inventory): void {
      for (const service of inventory.services) {
        services.add(service.name);
        add(replicaSets, service.name, service.replicaSets);
      }
      for (const vpc of inventory.vpcs) {
        vpcs.add(vpc.name);
        add(peerings, vpc.name, vpc.peerings);
      }
    },
    names: (): ExistedNames => ({ services, vpcs, replicaSets, peerings }),
  };
}

/** System time (or the moment it was stopped at) plus however far the cloud was moved on. */
class ForwardClock implements Clock {
  private skipped = 0;
  private stoppedAt: number | undefined;
  now(): number {
    return (this.stoppedAt ?? Date.now()) + this.skipped;
  }
  advance(ms: number): void {
    this.skipped += ms;
  }
  /** Stops the clock at a moment already past: every later read sees the cloud as it was then. */
  stopAt(epochMs: number): void {
    this.stoppedAt = Math.min(epochMs, Date.now());
  }
  /** Lets a stopped clock go on from where it stood (the time it stood still is not skipped). */
  resume(): void {
    if (this.stoppedAt === undefined) return;
    this.skipped -= Date.now() - this.stoppedAt;
    this.stoppedAt = undefined;
  }
}

function projectId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join('');
}

export async function startCaseCloud(
  testCase: Pick<TestCase, 'cloud' | 'faults'>,
  credentials: { accessKey: string; secretKey: string },
  /** Hears every answer of the cloud (the starting state's too), e.g. to check it against a document. */
  observeAnswers?: AnswerObserver,
  /** The dialect the cloud answers in; the local cloud's default (the real API's of today) when absent. */
  dialect?: Dialect,
): Promise<CaseCloud> {
  const clock = new ForwardClock();
  const id = projectId();
  // Per operation (and '*'), how many answers the run has had: a fault with `nth: N` is added once
  // N-1 answers went out, before the client reads the last one, so call N is the first it meets.
  const answered = new Map<string, number>();
  let armed = false;
  const waiting = testCase.faults.filter((fault) => fault.nth > 1);
  let cloud: LocalCloud | undefined = undefined;
  const sequence: ActionName[] = [];
  const existence = existenceLog();
  const onAnswer: AnswerObserver = (answer) => {
    observeAnswers?.(answer);
    if (cloud !== undefined) existence.note(cloud.inventory(id));
    const { action } = answer;
    if (!armed) return;
    sequence.push(action);
    for (const key of [action, '*']) answered.set(key, (answered.get(key) ?? 0) + 1);
    for (const fault of waiting.splice(0)) {
      if ((answered.get(fault.operation) ?? 0) >= fault.nth - 1)
        cloud?.addFaults(faultRule(fault) as FaultRuleInput);
      else waiting.push(fault);
    }
  };
  const durations = transitionDurations(testCase.cloud.durations);
  // The starting state is made at the case's durations too, so the time skipped outlasts them.
  const settleMs = Math.max(0, ...Object.values(durations)) + SETTLE_MS;
  cloud = await startLoopbackCloud({
    clock,
    timeScale: CASE_TIME_SCALE,
    durations,
    control: false,
    onAnswer,
    dialect,
    config: {
      projects: [{ id, name: 'test', access_key: credentials.accessKey, secret_key: credentials.secretKey }],
    },
  });
  const started = cloud;
  let held = false;
  const fixFaults = (): void => {
    waiting.length = 0;
    started.clearFaults();
  };
  const api = createCloudClient({ baseUrl: started.url, ...credentials, allowInsecureLoopback: true });
  try {
    const ids = await fill(testCase.cloud, id, api, () => clock.advance(settleMs));
    return {
      cloud: started,
      api,
      ids,
      arm() {
        started.resetStats();
        started.addFaults(
          testCase.faults.filter((f) => f.nth === 1).map((f) => faultRule(f) as FaultRuleInput),
        );
        armed = true;
      },
      disarm(endedAt) {
        held = false;
        if (endedAt !== undefined) clock.stopAt(endedAt);
        armed = false;
        fixFaults();
        return { calls: started.stats().byAction, sequence: [...sequence] };
      },
      existed: existence.names,
      fixFaults,
      holdClock() {
        held = true;
        clock.stopAt(Date.now());
      },
      releaseClock() {
        // Only a hold still in force: once disarmed, the clock stands where the run ended.
        if (held) clock.resume();
        held = false;
      },
      async close() {
        await api.close();
        await started.close();
      },
    };
  } catch (error) {
    await api.close();
    await started.close();
    throw error;
  }
}

/** Creates the starting state and returns the ids it got. */
async function fill(
  state: TestCase['cloud'],
  project_id: string,
  api: CloudClient,
  /** Moves the cloud's clock past any transition the last request started. */
  settle: () => void,
): Promise<CloudIds> {
  const vpcs = new Map<string, string>();
  for (const vpc of state.vpcs) {
    const made = await api.vpc.create({
      project_id,
      name: vpc.name,
      cidr: vpc.cidr,
      region_code: 'us-east-1',
    });
    const vpc_id = made.id;
    if (vpc_id === undefined) throw new Error(`the local cloud answered VPC ${vpc.name} without an id`);
    vpcs.set(vpc.name, vpc_id);
    // A VPC takes peerings once it is provisioned.
    if (vpc.peerings.length > 0) settle();
    for (const peering of vpc.peerings) {
      await api.peering.create({ project_id, vpc_id, ...peering });
      settle();
    }
  }
  const services = new Map<string, string>();
  for (const service of state.services) {
    const made = await api.service.create({
      project_id,
      name: service.name,
      addons: ['time-series'],
      cpu_millis: String(service.cpu_millis),
      memory_gbs: String(Number(service.cpu_millis) / 250),
      environment_tag: service.environment,
    });
    const service_id = made.service_id;
    if (service_id === undefined)
      throw new Error(`the local cloud answered service ${service.name} without an id`);
    services.set(service.name, service_id);
    settle();
    const vpcId = service.vpc !== undefined ? vpcs.get(service.vpc) : undefined;
    if (vpcId !== undefined) {
      await api.service.attachToVpc({ project_id, service_id, vpc_id: vpcId });
      settle();
    }
    if (service.pooler) {
      await api.service.enablePooler({ project_id, service_id });
      settle();
    }
    if (service.ha_replicas !== undefined) {
      await api.service.setHA({ project_id, service_id, ...service.ha_replicas });
      settle();
    }
    // Replica sets need the service's first snapshot, which the skipped time has taken.
    for (const set of service.replica_sets) {
      await api.replicaSet.create({
        project_id,
        service_id,
        name: set.name,
        nodes: set.nodes,
        cpu_millis: Number(set.cpu_millis),
        memory_gbs: Number(set.cpu_millis) / 250,
      });
      settle();
    }
    if (service.status === 'PAUSED') {
      await api.service.stop({ project_id, service_id });
      settle();
    }
    const now = await api.service.get({ project_id, service_id });
    if (now.status !== service.status)
      throw new Error(
        `starting service ${service.name} is ${now.status ?? 'unknown'}, not ${service.status}`,
      );
  }
  return { projectId: project_id, services, vpcs };
}
