// Fleets of services for the fleet benchmark and the fleet test (test/helpers/fleet.ts): seeding
// many DEV services in the local cloud quickly, and measuring a run's history with the histories
// of its child workflows.
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { CloudClient } from '../../cloud/client';

/** Creates `count` services named `<prefix><n>` (DEV, as created) and resolves once all are READY. */
export async function seedFleet(
  api: CloudClient,
  projectId: string,
  count: number,
  prefix = 'fleet-',
  parallel = 16,
): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const created = await api.service.create({
        project_id: projectId,
        name: `${prefix}${String(index).padStart(4, '0')}`,
        cpu_millis: '1000',
        memory_gbs: '4',
      });
      ids[index] = created.service_id!;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  const wanted = new Set(ids);
  for (const deadline = Date.now() + 120_000; ;) {
    const services = await api.service.list({ project_id: projectId });
    const ready = services.filter((s) => wanted.has(s.service_id!) && s.status === 'READY').length;
    if (ready === count) return ids;
    if (Date.now() > deadline) throw new Error(`only ${ready} of ${count} fleet services became READY`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface HistorySize {
  workflowId: string;
  events: number;
  /** The history's size as Temporal stores it (encoded protobuf, payloads as encoded). */
  bytes: number;
}

export interface RunFootprint {
  run: HistorySize;
  /** Child workflows the run started (foreach batches, child runbooks), each on its own. */
  children: HistorySize[];
}

const History = temporal.api.history.v1.History;

async function historySize(
  client: Client,
  workflowId: string,
): Promise<HistorySize & { childIds: string[] }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const childIds = events.flatMap((event) => {
    const id = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    return id ? [id] : [];
  });
  return {
    workflowId,
    events: events.length,
    bytes: History.encode(History.fromObject(history)).finish().length,
    childIds,
  };
}

/** The run's history and each child's, measured after the run has closed. */
export async function runFootprint(client: Client, workflowId: string): Promise<RunFootprint> {
  const { childIds, ...run } = await historySize(client, workflowId);
  const children: HistorySize[] = [];
  for (const childId of childIds) {
    const { childIds: _grandchildren, ...child } = await historySize(client, childId);
    children.push(child);
  }
  return { run, children };
}
