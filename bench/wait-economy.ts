// Figure 3 — API economy and detection lag of waits of 10 s, 60 s and 10 min, for tideline's wait
// activity against fixed 15 s polling after a 30 s first delay and fixed 1 s polling.
//
// Method: every wait polls a real service on the local cloud over HTTP until it is READY. So that a
// 10-minute wait does not take 10 minutes, time is compressed by a per-length `scale`: the service
// becomes READY after (0.9…1.1) × wait × scale real ms, and each policy's intervals are multiplied
// by the same scale (tideline's wait activity gets interval 1 s × scale and maxInterval 15 s ×
// scale; its 10 % rule is scale-free). Lag = (noticed − READY) / scale, READY taken from the local
// cloud's own record. HTTP latency is also divided by the scale, so the compressed runs slightly
// overstate lag. A virtual-clock model of the same policies (thousands of samples) is reported
// next to them.
import { createCloudClient } from '../cloud/client';
import { startLoopbackCloud } from '../stack/local-cloud';
import { modelWait, POLICIES, waitWith, type PolicyName } from './wait-policies';
import { mean, percentile, round, sleep } from './lib/stats';

export interface WaitLength {
  label: string;
  waitMs: number;
  /** Real ms per nominal ms. */
  scale: number;
}

export const WAIT_LENGTHS: WaitLength[] = [
  { label: '10 s', waitMs: 10_000, scale: 0.5 },
  { label: '60 s', waitMs: 60_000, scale: 0.2 },
  { label: '10 min', waitMs: 600_000, scale: 0.05 },
];

export interface PolicyFigures {
  policy: PolicyName;
  samples: number;
  callsPerWait: number;
  /** Calls counted at the local cloud, divided by the samples (checks callsPerWait). */
  serverCallsPerWait: number;
  lagP50Ms: number;
  lagP95Ms: number;
  lagMaxMs: number;
  model: { samples: number; callsPerWait: number; lagP50Ms: number; lagP95Ms: number };
}

export interface WaitLengthResult {
  label: string;
  waitMs: number;
  scale: number;
  /** max(1 s, 10 % of the wait). */
  lagGoalMs: number;
  policies: PolicyFigures[];
}

interface ServiceState {
  id: string;
  firstReadyAt: number | null;
}

async function readyTimes(controlUrl: string, token: string): Promise<Map<string, number>> {
  const answer = await fetch(`${controlUrl}/state`, { headers: { authorization: `Bearer ${token}` } });
  const state = (await answer.json()) as { services: ServiceState[] };
  return new Map(state.services.filter((s) => s.firstReadyAt !== null).map((s) => [s.id, s.firstReadyAt!]));
}

async function measurePolicy(
  length: WaitLength,
  policy: PolicyName,
  samples: number,
): Promise<PolicyFigures> {
  const real = (nominalMs: number) => Math.round(nominalMs * length.scale);
  const cloud = await startLoopbackCloud({
    timeScale: 1,
    durations: { queued: 0, configuring: real(length.waitMs * 1.1) },
  });
  const project = cloud.projects[0]!;
  const api = createCloudClient({
    baseUrl: cloud.url,
    accessKey: project.access_key,
    secretKey: project.secret_key,
    allowInsecureLoopback: true,
  });
  try {
    const outcomes = await Promise.all(
      Array.from({ length: samples }, async (_, index) => {
        const created = await api.service.create({
          project_id: project.id,
          name: `wait-${index}`,
          cpu_millis: '1000',
          memory_gbs: '4',
        });
        // Starting 0…20 % of the wait late spreads READY over the polling phases.
        await sleep(real(Math.random() * 0.2 * length.waitMs));
        const outcome = await waitWith(policy, {
          api,
          projectId: project.id,
          serviceId: created.service_id!,
          scale: length.scale,
          deadlineMs: length.waitMs * 3,
        });
        return { ...outcome, serviceId: created.service_id! };
      }),
    );
    const ready = await readyTimes(cloud.controlUrl, cloud.controlToken!);
    const lags = outcomes.map((o) => (o.noticedAt - ready.get(o.serviceId)!) / length.scale);
    const serverCalls = cloud.stats().byAction['service.get']?.total ?? 0;
    const model = Array.from({ length: 4000 }, () =>
      modelWait(policy, length.waitMs * (0.9 + 0.2 * Math.random()), Math.random),
    );
    return {
      policy,
      samples,
      callsPerWait: round(mean(outcomes.map((o) => o.calls)), 1),
      serverCallsPerWait: round(serverCalls / samples, 1),
      lagP50Ms: round(percentile(lags, 50), 0),
      lagP95Ms: round(percentile(lags, 95), 0),
      lagMaxMs: round(Math.max(...lags), 0),
      model: {
        samples: model.length,
        callsPerWait: round(mean(model.map((m) => m.calls)), 1),
        lagP50Ms: round(
          percentile(
            model.map((m) => m.lagMs),
            50,
          ),
          0,
        ),
        lagP95Ms: round(
          percentile(
            model.map((m) => m.lagMs),
            95,
          ),
          0,
        ),
      },
    };
  } finally {
    await api.close();
    await cloud.close();
  }
}

export async function measureWaitEconomy(
  lengths: WaitLength[] = WAIT_LENGTHS,
  samples: { tideline: number; reference: number } = { tideline: 20, reference: 10 },
): Promise<WaitLengthResult[]> {
  const results: WaitLengthResult[] = [];
  for (const length of lengths) {
    // The three policies run side by side, each against its own local cloud (separate counts).
    const policies = await Promise.all(
      POLICIES.map((policy) =>
        measurePolicy(length, policy, policy === 'tideline' ? samples.tideline : samples.reference),
      ),
    );
    results.push({
      label: length.label,
      waitMs: length.waitMs,
      scale: length.scale,
      lagGoalMs: Math.max(1_000, length.waitMs * 0.1),
      policies,
    });
  }
  return results;
}
