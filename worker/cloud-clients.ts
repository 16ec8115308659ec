// One Cloud API client per configured project, built lazily from the worker's configuration.
// Activities ask for a project's client; credentials never travel through workflow input.
import type { CloudCaller, CloudClientResolver } from '../activities/deps';
import { createCloudClient, type CloudClientOptions } from '../cloud/client';
import { CloudApiError } from '../cloud/errors';
import { ProjectRateLimiter, rateLimitedCaller } from '../cloud/rate-limiter';
import type { CloudConfig } from './config';

export type CloudClientFactory = (options: CloudClientOptions) => CloudCaller;

/** The resolver, and the projects' budgets it applies (for sharing them among workers). */
export interface LimitedCloudClientResolver extends CloudClientResolver {
  limiters(): ProjectRateLimiter[];
}

export function createCloudClientResolver(
  cloud: CloudConfig,
  factory: CloudClientFactory = createCloudClient,
): LimitedCloudClientResolver {
  const clients = new Map<string, CloudCaller>();
  // One per project with a budget, made up front so the worker can share them out (rate-share.ts).
  const limiters = new Map<string, ProjectRateLimiter>();
  for (const project of cloud.projects.values()) {
    if (project.rateLimit !== undefined)
      limiters.set(project.projectId, new ProjectRateLimiter(project.rateLimit));
  }
  return {
    forProject(projectId: string | undefined): CloudCaller {
      const id = projectId ?? cloud.defaultProjectId;
      const cached = clients.get(id);
      if (cached) return cached;
      const project = cloud.projects.get(id);
      if (project === undefined) {
        throw new CloudApiError({
          code: 'CLOUD_API_CONFIG',
          message:
            `this worker has no Cloud API credentials for project "${id}" ` +
            `(configured: ${[...cloud.projects.keys()].join(', ')}); add them to the worker's configuration`,
        });
      }
      // The key pair (HTTP Basic) or the bearer token, whichever the project has.
      const credentials =
        project.bearerToken !== undefined
          ? { bearerToken: project.bearerToken }
          : { accessKey: project.accessKey, secretKey: project.secretKey };
      const direct = factory({
        baseUrl: project.baseUrl,
        ...credentials,
        allowInsecureLoopback: cloud.allowInsecureLoopback,
        timeoutMs: cloud.timeoutMs,
      });
      const limiter = limiters.get(id);
      const client = limiter === undefined ? direct : rateLimitedCaller(direct, limiter);
      clients.set(id, client);
      return client;
    },
    limiters: () => [...limiters.values()],
  };
}
