// Helpers for end-to-end runbook tests on top of runbook-stack.ts: seeding services in a given
// shape, polling the local cloud for a state, following a run's progress, and approving.
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { Service } from '../../cloud/models';
import { loadRunbookFile } from '../../dsl/loader';
import {
  approvalUpdate,
  progressQuery,
  type ApprovalDecision,
  type ApprovalOutcome,
  type PendingApproval,
  type RunProgress,
  type RunReport,
  type StepStatus,
} from '../../contract/run-messages';
import { pollUntil } from '../../bench/lib/cancel-runs';
import { failedReport, RUNBOOKS_DIR, type RunbookStack } from './runbook-stack';

// One poll loop for tests and the chaos campaign (it lives with the campaign's cancel runs).
export { pollUntil };

/** Polls the local cloud until the service matches. */
export function waitForService(
  stack: RunbookStack,
  serviceId: string,
  predicate: (service: Service) => boolean,
  timeoutMs = 10_000,
): Promise<Service> {
  return pollUntil(
    `service ${serviceId}`,
    () => stack.api.service.get({ project_id: stack.projectId, service_id: serviceId }),
    predicate,
    timeoutMs,
  );
}

export function getService(stack: RunbookStack, serviceId: string): Promise<Service> {
  return stack.api.service.get({ project_id: stack.projectId, service_id: serviceId });
}

/** Creates a VPC in us-east-1 (default: `main`, 10.0.0.0/16) in the stack's project; returns its id. */
export async function createVpc(
  stack: Pick<RunbookStack, 'api' | 'projectId'>,
  options: { name?: string; cidr?: string } = {},
): Promise<string> {
  const vpc = await stack.api.vpc.create({
    project_id: stack.projectId,
    name: options.name ?? 'main',
    cidr: options.cidr ?? '10.0.0.0/16',
    region_code: 'us-east-1',
  });
  return vpc.id!;
}

/** Names of the services the project has now (any status). */
export async function serviceNames(stack: RunbookStack): Promise<string[]> {
  const services = await stack.api.service.list({ project_id: stack.projectId });
  return services.map((service) => service.name ?? '').sort();
}

export interface SeedServiceOptions {
  name: string;
  /** An allowed numeric size; default 1000 millicores / 4 GB. */
  cpuMillis?: string;
  environment?: 'DEV' | 'PROD';
  vpcId?: string;
  pooler?: boolean;
  ha?: { replica_count: number; sync_replica_count: number };
  /** Stop the service once it is set up. */
  paused?: boolean;
}

const isReady = (service: Service) => service.status === 'READY';

/** Creates a service through the API and sets it up as asked, waiting for each change. */
/** A seeded service's id (it always has one). */
export function idOf(service: { service_id?: string | undefined }): string {
  if (service.service_id === undefined) throw new Error('the seeded service has no id');
  return service.service_id;
}

export async function seedService(stack: RunbookStack, options: SeedServiceOptions): Promise<Service> {
  const project_id = stack.projectId;
  const cpu = options.cpuMillis ?? '1000';
  const created = await stack.api.service.create({
    project_id,
    name: options.name,
    cpu_millis: cpu,
    memory_gbs: String(Number(cpu) / 250),
  });
  const service_id = created.service_id!;
  await waitForService(stack, service_id, isReady);
  if (options.vpcId !== undefined) {
    await stack.api.service.attachToVpc({ project_id, service_id, vpc_id: options.vpcId });
    await waitForService(stack, service_id, (s) => isReady(s) && s.vpc_endpoint?.vpc_id === options.vpcId);
  }
  if (options.pooler) {
    await stack.api.service.enablePooler({ project_id, service_id });
    await waitForService(stack, service_id, (s) => isReady(s) && !!s.connection_pooler?.endpoint);
  }
  if (options.ha) {
    await stack.api.service.setHA({ project_id, service_id, ...options.ha });
    await waitForService(
      stack,
      service_id,
      (s) => isReady(s) && s.ha_replicas?.replica_count === options.ha?.replica_count,
    );
  }
  if (options.environment === 'PROD') {
    await stack.api.service.setEnvironment({ project_id, service_id, environment: 'PROD' });
  }
  if (options.paused) {
    await stack.api.service.stop({ project_id, service_id });
    return waitForService(stack, service_id, (s) => s.status === 'PAUSED');
  }
  return getService(stack, service_id);
}

/** The run's report, whether it succeeded or failed. */
export async function reportOf(handle: WorkflowHandle): Promise<RunReport> {
  try {
    return (await handle.result()) as RunReport;
  } catch {
    return failedReport(handle);
  }
}

/** Polls the progress query until the step (by key) has the status. */
export function waitForStep(
  handle: WorkflowHandle,
  stepKey: string,
  status: StepStatus,
  timeoutMs = 15_000,
): Promise<RunProgress> {
  return pollUntil(
    `step ${stepKey} to be ${status}`,
    () => handle.query(progressQuery),
    (progress) => progress.steps.some((step) => step.key === stepKey && step.status === status),
    timeoutMs,
  );
}

/** Polls the progress query until an approval is pending, and gives it. */
export async function waitForApproval(handle: WorkflowHandle, timeoutMs = 15_000): Promise<PendingApproval> {
  const progress = await pollUntil(
    'a pending approval',
    () => handle.query(progressQuery),
    (p) => p.pendingApproval !== undefined,
    timeoutMs,
  );
  return progress.pendingApproval!;
}

/** Approves or rejects the pending approval through the workflow update. */
export function decide(handle: WorkflowHandle, decision: ApprovalDecision): Promise<ApprovalOutcome> {
  return handle.executeUpdate(approvalUpdate, { args: [decision] });
}

/** `[key, status]` of each step record, for compact assertions. */
export function stepStatuses(report: RunProgress): Array<[string, StepStatus]> {
  return report.steps.map((step) => [step.key, step.status]);
}

export function statusOf(report: RunProgress, stepKey: string): StepStatus | undefined {
  return report.steps.find((step) => step.key === stepKey)?.status;
}

/**
 * Every output the runbook file (under `runbooks/`) declares is filled in the report: not absent,
 * null, empty text or an empty list. A field the API renamed that the runbook reads under a name
 * the answer lacks shows up here as an empty output.
 */
export function expectEveryOutputFilled(report: RunReport, file: string): void {
  const declared = Object.keys(loadRunbookFile(path.join(RUNBOOKS_DIR, file)).outputs);
  expect(declared.length).toBeGreaterThan(0);
  const empty = declared.filter((name) => {
    const value = report.outputs[name];
    return (
      value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
    );
  });
  expect({ file, empty }).toEqual({ file, empty: [] });
}
