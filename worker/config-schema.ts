// The worker configuration's schema and how environment variables are laid over the file's
// content. Checked in one pass so that every problem is reported at once.
import { z } from 'zod';
import { parseBaseUrl } from '../cloud/base-url';
import { Secret } from '../cloud/redact';

export const DEFAULT_TASK_QUEUE = 'tideline';

const NO_CREDENTIALS =
  'no Cloud API credentials (set TIDELINE_CLOUD_PROJECT_ID, TIDELINE_CLOUD_ACCESS_KEY and ' +
  'TIDELINE_CLOUD_SECRET_KEY, or list projects in the file named by TIDELINE_CONFIG)';

const CloudBaseUrl = z.string().min(1, 'must not be empty');

const ProjectCredentials = z.strictObject({
  accessKey: z.string().min(1, 'must not be empty'),
  secretKey: z
    .string()
    .min(1, 'must not be empty')
    .transform((value) => new Secret(value)),
  /** Only when this project lives behind another API endpoint than `cloud.baseUrl`. */
  baseUrl: CloudBaseUrl.optional(),
});

const HostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must look like host:port, e.g. 127.0.0.1:9464');

/** The client's own rules: https, or plain http to a loopback host when explicitly allowed. */
function checkBaseUrl(raw: string, allowInsecure: boolean, ctx: z.RefinementCtx, path: PropertyKey[]): void {
  try {
    parseBaseUrl(raw, allowInsecure);
  } catch (error) {
    ctx.addIssue({ code: 'custom', path, message: error instanceof Error ? error.message : String(error) });
  }
}

const CloudSection = z
  .strictObject({
    baseUrl: CloudBaseUrl.optional(),
    allowInsecureLoopback: z.boolean().optional(),
    timeoutMs: z.number().int().positive().optional(),
    defaultProject: z.string().min(1).optional(),
    projects: z.record(z.string().min(1), ProjectCredentials).optional(),
  })
  .superRefine((cloud, ctx) => {
    const insecure = cloud.allowInsecureLoopback ?? false;
    if (cloud.baseUrl === undefined) {
      const message = 'required (set TIDELINE_CLOUD_URL or cloud.baseUrl in the file)';
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message });
    } else {
      checkBaseUrl(cloud.baseUrl, insecure, ctx, ['baseUrl']);
    }
    const ids = Object.keys(cloud.projects ?? {});
    if (ids.length === 0) ctx.addIssue({ code: 'custom', path: ['projects'], message: NO_CREDENTIALS });
    for (const [id, project] of Object.entries(cloud.projects ?? {})) {
      if (project.baseUrl !== undefined)
        checkBaseUrl(project.baseUrl, insecure, ctx, ['projects', id, 'baseUrl']);
    }
    if (cloud.defaultProject !== undefined && ids.length > 0 && !ids.includes(cloud.defaultProject)) {
      const message = `"${cloud.defaultProject}" is not one of the configured projects`;
      ctx.addIssue({ code: 'custom', path: ['defaultProject'], message });
    }
  });

/**
 * The configuration file's shape. It checks the file merged with the environment, so
 * `cloud.baseUrl` and one project are required only in the combination.
 */
const Slots = z.number().int().min(1, 'must be at least 1');

/** Worker capacity for many concurrent runs (see the README's Performance section). */
export const WorkerTuningSchema = z.strictObject({
  maxConcurrentActivityTaskExecutions: Slots.optional(),
  maxConcurrentWorkflowTaskExecutions: Slots.optional(),
  maxCachedWorkflows: z.number().int().min(0, 'must not be negative').optional(),
  maxConcurrentActivityTaskPolls: Slots.optional(),
  maxConcurrentWorkflowTaskPolls: Slots.optional(),
});
export type WorkerTuning = z.infer<typeof WorkerTuningSchema>;

/**
 * What every worker (npm run worker, docker compose, tideline dev) runs with unless `tuning:` says
 * otherwise. A wait holds an activity slot for as long as it polls, so the SDK's 100 slots let
 * only 100 runs wait at once (1,000 runs on 5-minute lifecycles took 2.14× instead of 1.26×); the
 * other values keep the slots fed. The sticky cache is left to the SDK, which sizes it from the
 * heap limit (≈ 2,300 runs on a 24 GiB machine), so a small container does not run out of memory.
 */
export const DEFAULT_WORKER_TUNING: Readonly<WorkerTuning> = {
  maxConcurrentActivityTaskExecutions: 2_000,
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentActivityTaskPolls: 20,
  maxConcurrentWorkflowTaskPolls: 20,
};

export const WorkerConfigSchema = z.strictObject({
  /** Passed to the Temporal worker as they are; absent ones keep the SDK's defaults. */
  tuning: WorkerTuningSchema.optional(),
  taskQueue: z.string().min(1, 'must not be empty').optional(),
  /** Shared with the CLI; TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (and profiles) take precedence. */
  temporal: z
    .strictObject({
      address: z.string().min(1, 'must not be empty').optional(),
      namespace: z.string().min(1, 'must not be empty').optional(),
    })
    .optional(),
  metricsAddress: HostPort.optional(),
  cloud: CloudSection,
});
export type ParsedWorkerConfig = z.infer<typeof WorkerConfigSchema>;

function flagIsOn(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Environment variables on top of the raw file content (checked afterwards by the schema); the
 * env project joins (or replaces) the file's.
 */
export function applyEnvironment(
  file: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  problems: string[],
): unknown {
  const fileCloud = isRecord(file.cloud) ? file.cloud : {};
  const projects: Record<string, unknown> = isRecord(fileCloud.projects) ? { ...fileCloud.projects } : {};
  const cloud: Record<string, unknown> = { ...fileCloud, projects };
  if (file.cloud !== undefined && !isRecord(file.cloud)) {
    problems.push('cloud: must be a mapping (baseUrl, projects, …)');
  } else if (fileCloud.projects !== undefined && !isRecord(fileCloud.projects)) {
    problems.push('cloud.projects: must be a mapping of project id to { accessKey, secretKey }');
  }
  if (env.TIDELINE_CLOUD_URL) cloud.baseUrl = env.TIDELINE_CLOUD_URL;
  const insecure = flagIsOn(env.TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK);
  if (insecure !== undefined) cloud.allowInsecureLoopback = insecure;

  const trio = {
    TIDELINE_CLOUD_PROJECT_ID: env.TIDELINE_CLOUD_PROJECT_ID,
    TIDELINE_CLOUD_ACCESS_KEY: env.TIDELINE_CLOUD_ACCESS_KEY,
    TIDELINE_CLOUD_SECRET_KEY: env.TIDELINE_CLOUD_SECRET_KEY,
  };
  const given = Object.entries(trio).filter(([, value]) => value !== undefined && value !== '');
  if (given.length === 3) {
    const projectId = trio.TIDELINE_CLOUD_PROJECT_ID as string;
    projects[projectId] = {
      accessKey: trio.TIDELINE_CLOUD_ACCESS_KEY,
      secretKey: trio.TIDELINE_CLOUD_SECRET_KEY,
    };
    cloud.defaultProject = projectId;
  } else if (given.length > 0) {
    const missing = Object.keys(trio).filter((name) => !given.some(([set]) => set === name));
    problems.push(
      `${missing.join(' and ')} must be set too (the three TIDELINE_CLOUD_* credentials go together)`,
    );
  }
  return {
    ...file,
    ...(env.TIDELINE_TASK_QUEUE ? { taskQueue: env.TIDELINE_TASK_QUEUE } : {}),
    ...(env.TIDELINE_METRICS_ADDRESS ? { metricsAddress: env.TIDELINE_METRICS_ADDRESS } : {}),
    cloud,
  };
}

export function issueText(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  return `${where}: ${issue.message}`;
}
