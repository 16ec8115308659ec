// The reference for the orchestration overhead: a plain script that makes the same API calls as
// provision-production-service and polls every 100 ms. Nothing survives its process; it is the
// lower bound a durable runbook is compared with.
import type { CloudClient } from '../../cloud/client';
import type { Service } from '../../cloud/models';
import { sleep } from './stats';

async function pollService(
  api: CloudClient,
  ids: { project_id: string; service_id: string },
  done: (service: Service) => boolean,
  everyMs: number,
): Promise<number> {
  for (let polls = 1; ; polls++) {
    const service = await api.service.get(ids);
    if (done(service)) return polls;
    await sleep(everyMs);
  }
}

/** Returns the number of API calls made. */
export async function provisionByScript(
  api: CloudClient,
  args: { projectId: string; name: string; vpcId: string; pollMs?: number },
): Promise<number> {
  const every = args.pollMs ?? 100;
  const project_id = args.projectId;
  const created = await api.service.create({
    project_id,
    name: args.name,
    addons: ['time-series'],
    cpu_millis: '1000',
    memory_gbs: '4',
  });
  const ids = { project_id, service_id: created.service_id! };
  let calls = 1;
  calls += await pollService(api, ids, (s) => s.status === 'READY', every);
  await api.service.attachToVpc({ ...ids, vpc_id: args.vpcId });
  calls +=
    1 +
    (await pollService(
      api,
      ids,
      (s) => s.status === 'READY' && s.vpc_endpoint?.vpc_id === args.vpcId,
      every,
    ));
  await api.service.enablePooler(ids);
  calls +=
    1 + (await pollService(api, ids, (s) => s.status === 'READY' && !!s.connection_pooler?.endpoint, every));
  await api.service.setEnvironment({ ...ids, environment: 'PROD' });
  return calls + 1;
}
