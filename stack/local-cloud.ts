// The local cloud of a local stack, in this process on 127.0.0.1 (any free port unless one is
// given), and what points a tideline worker at it: the TIDELINE_CLOUD_* settings of a worker
// process, or the configuration of a worker in this process built from the projects' key pairs.
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../local-cloud/server';
import { configError, loadWorkerConfig, type WorkerConfig } from '../worker/config';
import { LOOPBACK } from './ports';

export type LoopbackCloudOptions = Omit<LocalCloudOptions, 'host'>;

export function startLoopbackCloud(options: LoopbackCloudOptions = {}): Promise<LocalCloud> {
  return startLocalCloud({ ...options, host: LOOPBACK, port: options.port ?? 0 });
}

/** One project of a local cloud, as a worker or a client reaches it. */
export interface CloudAccess {
  url: string;
  projectId: string;
  accessKey: string;
  secretKey: string;
}

/** Every project of the cloud. */
export function allProjectsAccess(cloud: LocalCloud): CloudAccess[] {
  return cloud.projects.map((p) => ({
    url: cloud.url,
    projectId: p.id,
    accessKey: p.access_key,
    secretKey: p.secret_key,
  }));
}

/** The access to the cloud's first project. */
export function firstProjectAccess(cloud: LocalCloud): CloudAccess {
  const [first] = allProjectsAccess(cloud);
  if (first === undefined) throw new Error(`the local cloud at ${cloud.url} has no project`);
  return first;
}

/** The worker settings (TIDELINE_CLOUD_*) that point a worker process at one project. */
export function cloudWorkerEnv(access: CloudAccess): Record<string, string> {
  return {
    TIDELINE_CLOUD_URL: access.url,
    TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK: '1',
    TIDELINE_CLOUD_PROJECT_ID: access.projectId,
    TIDELINE_CLOUD_ACCESS_KEY: access.accessKey,
    TIDELINE_CLOUD_SECRET_KEY: access.secretKey,
  };
}

/** What a worker in this process reads besides the local cloud's projects. */
export interface LocalWorkerFile {
  /** The worker configuration file (`tideline dev --config`): everything in it but the cloud's endpoint and credentials. */
  configFile?: string | undefined;
  /** One-line notices (a config file with a secret that others can read). */
  notice?: (line: string) => void;
}

/** Keys of the file a worker of the local cloud cannot honour: the cloud is the stack's, and so is the server. */
const NOT_HONOURED: readonly { key: string; has: (file: Record<string, unknown>) => boolean; why: string }[] =
  [
    ...(['baseUrl', 'projects', 'defaultProject', 'allowInsecureLoopback'] as const).map((name) => ({
      key: `cloud.${name}`,
      has: (file: Record<string, unknown>) => isRecord(file.cloud) && file.cloud[name] !== undefined,
      why: "the dev worker calls the stack's local cloud with its own projects; keep a copy of the file without it for `tideline dev`",
    })),
    {
      key: 'temporal.address',
      has: (file) => isRecord(file.temporal) && file.temporal.address !== undefined,
      why: 'the dev stack starts its own Temporal server; choose its port with --port and leave the address out',
    },
  ];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The configuration of a worker in this process for these projects, through the worker's own
 * resolver: with a config file, everything it holds (policies, calendars, catalogue, approvals,
 * notifications, drift, tuning, metrics, the cloud's timeout and rate limit) with the local
 * cloud's endpoint and credentials over it; a key it cannot honour is refused by name. Never from
 * the environment.
 */
export function localCloudWorkerConfig(
  url: string,
  projects: readonly CloudAccess[],
  taskQueue: string,
  file: LocalWorkerFile = {},
): WorkerConfig {
  const credentials = Object.fromEntries(
    projects.map((p) => [p.projectId, { accessKey: p.accessKey, secretKey: p.secretKey }]),
  );
  const cloud = { baseUrl: url, allowInsecureLoopback: true, projects: credentials };
  if (file.configFile === undefined) {
    const content = JSON.stringify({ taskQueue, cloud });
    return loadWorkerConfig({ env: { TIDELINE_CONFIG: 'tideline-dev-stack.json' }, readFile: () => content });
  }
  return loadWorkerConfig({
    env: { TIDELINE_CONFIG: file.configFile },
    ...(file.notice !== undefined && { notice: file.notice }),
    override(content, source) {
      const refused = NOT_HONOURED.filter((entry) => entry.has(content));
      if (refused.length > 0) {
        throw configError(
          refused.map((entry) => `${entry.key}: not honoured by tideline dev: ${entry.why}`),
          source,
        );
      }
      const own = isRecord(content.cloud) ? content.cloud : {};
      return { ...content, taskQueue, cloud: { ...own, ...cloud } };
    },
  });
}
