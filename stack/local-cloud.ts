// The local cloud of a local stack, in this process on 127.0.0.1 (any free port unless one is
// given), and what points a tideline worker at it: the TIDELINE_CLOUD_* settings of a worker
// process, or the configuration of a worker in this process built from the projects' key pairs.
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../local-cloud/server';
import { loadWorkerConfig, type WorkerConfig } from '../worker/config';
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

/** The configuration of a worker in this process for these projects (never from the environment). */
export function localCloudWorkerConfig(
  url: string,
  projects: readonly CloudAccess[],
  taskQueue: string,
): WorkerConfig {
  const credentials = Object.fromEntries(
    projects.map((p) => [p.projectId, { accessKey: p.accessKey, secretKey: p.secretKey }]),
  );
  const content = JSON.stringify({
    taskQueue,
    cloud: { baseUrl: url, allowInsecureLoopback: true, projects: credentials },
  });
  return loadWorkerConfig({ env: { TIDELINE_CONFIG: 'tideline-dev-stack.json' }, readFile: () => content });
}
