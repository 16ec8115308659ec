// The pieces of `tideline demo` around the run itself: a CLI session on the dev stack (so the core
// CLI's follower can show the run), the VPC the runbook attaches to, and what the local cloud
// holds afterwards.
import { createCloudClient, type CloudClient } from '../cloud/client';
import type { CliContext } from './context';
import type { TemporalSession } from './temporal';
import type { DevStack } from '../stack/dev-stack';

/** A session like `openTemporal` gives, connected to the dev stack with its keys. */
export function stackSession(stack: DevStack): TemporalSession {
  const { client } = stack;
  return {
    client,
    keyRing: stack.keys.keyRing,
    target: {
      address: stack.temporal.address,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
    },
    settings: {
      address: stack.temporal.address,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
      configFile: undefined,
      sources: { address: 'flag', namespace: 'flag', taskQueue: 'flag' },
    },
    // The stack's client: closed with the stack.
    close: async () => undefined,
  };
}

/** The context commands see inside the demo: hints name the stack's address. */
export function stackContext(ctx: CliContext, stack: DevStack): CliContext {
  return {
    ...ctx,
    globals: {
      ...ctx.globals,
      address: stack.temporal.address,
      namespace: stack.temporal.namespace,
      taskQueue: stack.taskQueue,
    },
  };
}

export interface DemoProject {
  projectId: string;
  api: CloudClient;
}

/** A typed client of the local cloud's (first) project. */
export function demoProject(stack: DevStack): DemoProject {
  const project = stack.cloud.projects[0];
  if (project === undefined) throw new Error('the local cloud has no project');
  return {
    projectId: project.id,
    api: createCloudClient({
      baseUrl: stack.cloud.url,
      accessKey: project.access_key,
      secretKey: project.secret_key,
      allowInsecureLoopback: true,
    }),
  };
}

/** One line per fact about the service the run made, as the local cloud reports it now. */
export async function serviceSummary(project: DemoProject, serviceId: string): Promise<string[]> {
  const service = await project.api.service.get({ project_id: project.projectId, service_id: serviceId });
  const lines = [
    `  service      ${service.name ?? '?'} (${serviceId}): ${service.status ?? '?'}, environment ${service.metadata?.environment ?? '-'}`,
  ];
  if (service.vpc_endpoint?.host)
    lines.push(
      `  VPC endpoint ${service.vpc_endpoint.host}:${service.vpc_endpoint.port ?? ''} (VPC ${service.vpc_endpoint.vpc_id ?? '?'})`,
    );
  const pooler = service.connection_pooler?.endpoint;
  if (pooler?.host) lines.push(`  pooler       ${pooler.host}:${pooler.port ?? ''}`);
  return lines;
}
