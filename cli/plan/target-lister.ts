// What `tideline plan` reads of the worker's configuration (--config / TIDELINE_CONFIG and the
// TIDELINE_CLOUD_* variables, the same settings `tideline worker` runs with): the Cloud API
// endpoint and credentials, for the read-only `service.list` of --resolve-targets and the
// `service.get` of the targets the worker's policies read, and the policies themselves
// (`policies:`, `calendars:`). Loaded once, at first use. Failures become CLI errors with stable
// codes: a configuration without the project is bad usage (exit 2), an API that cannot answer is
// unavailable (exit 3); a target that cannot be read for the policies is only noted in the plan,
// and so is a file with policies the plan cannot load whole (no credentials on this machine).
import { serviceAsTarget } from '../../activities/policy-check';
import type { JsonValue } from '../../dsl/expressions';
import path from 'node:path';
import { calendarFileReader } from '../../dsl/calendar-files';
import { compileGovernance, type CompiledGovernance } from '../../dsl/policies';
import { CloudApiError } from '../../cloud/errors';
import { loadWorkerConfig, type WorkerConfig } from '../../worker/config';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import { WorkerError } from '../../worker/errors';
import { readConfigDocument, resolveConfigFile } from '../../worker/shared-settings';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { settingsEnvironment } from '../settings';
import type { ServiceLister } from './plan-targets';
import type { PolicyTargetRead, PolicyTargetReader } from './plan-policies';

const CONFIG_HINT =
  'give the Cloud API as the worker has it: --config FILE (cloud.baseUrl, cloud.projects), or TIDELINE_CLOUD_URL with TIDELINE_CLOUD_PROJECT_ID and its keys';

function configError(error: unknown): unknown {
  if (error instanceof WorkerError) return new CliError('CLI_USAGE', error.message, CONFIG_HINT);
  return error;
}

function listingError(error: unknown, projectId: string): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof WorkerError) return new CliError('CLI_USAGE', error.message, CONFIG_HINT);
  if (error instanceof CloudApiError && error.code === 'CLOUD_API_CONFIG')
    return new CliError('CLI_USAGE', error.message, CONFIG_HINT);
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(
    'CLOUD_UNAVAILABLE',
    `could not list the services of project ${projectId}: ${message}`,
    'check the Cloud API address and credentials, or plan without --resolve-targets',
  );
}

/**
 * A config file's `policies` and `calendars` as written: null when it names neither, undefined
 * when it cannot be read or parsed.
 */
function governanceSection(file: string): Record<string, unknown> | null | undefined {
  const document = readConfigDocument(file);
  if (document.kind !== 'parsed') return undefined;
  const content: unknown = document.content;
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return null;
  const { policies, calendars } = content as Record<string, unknown>;
  if (policies === undefined && calendars === undefined) return null;
  return { ...(policies !== undefined && { policies }), ...(calendars !== undefined && { calendars }) };
}

/** An error's message as one line: a configuration error's first problem. */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const [head = '', ...problems] = message.split('\n');
  const first = problems.find((line) => line.trim().startsWith('- '));
  return first === undefined ? head : first.trim().slice(2);
}

export interface PlanWorkerConfig {
  /**
   * The worker's policies and the file they come from; undefined without a config file, or when
   * it has none. Policies that do not compile are an error (CLI_USAGE), as for the worker.
   */
  governance(): { governance: CompiledGovernance; configFile: string } | undefined;
  /** Lists a project's services (service.list). */
  lister: ServiceLister;
  /** The project the configuration calls default (`cloud.defaultProject`, or its first). */
  defaultProjectId(): string;
  /** Reads the service a step changes for the policies (service.get), as the worker does. */
  readTarget: PolicyTargetReader;
  /** Reads one VPC or service as the API answers it (a rehearsal copies its name and shape). */
  readResource(
    projectId: string,
    action: 'vpc.get' | 'service.get',
    id: string,
  ): Promise<Record<string, unknown>>;
}

export function planWorkerConfig(
  ctx: Pick<CliContext, 'globals' | 'env' | 'cwd' | 'stderr'>,
): PlanWorkerConfig {
  let config: WorkerConfig | undefined;
  let resolver: ReturnType<typeof createCloudClientResolver> | undefined;
  /** Why no target can be read: the configuration could not be loaded (policies only). */
  let unreadable: string | undefined;
  const load = (): WorkerConfig => {
    try {
      config ??= loadWorkerConfig({
        env: settingsEnvironment(ctx),
        notice: (line) => ctx.stderr.write(`${line}\n`),
      });
      return config;
    } catch (error) {
      throw configError(error);
    }
  };
  const clients = () => (resolver ??= createCloudClientResolver(load().cloud));
  return {
    governance() {
      const file = resolveConfigFile(ctx.env, ctx.globals.config, ctx.cwd);
      if (file === undefined) return undefined;
      let loaded: WorkerConfig;
      try {
        loaded = load();
      } catch (error) {
        // A client-only file (taskQueue, temporal) is no worker configuration: it has no policies.
        const section = governanceSection(file);
        if (section === null) return undefined;
        if (section === undefined) throw error;
        // Policies in a file the plan cannot take whole (no Cloud API credentials here, say): the
        // same compilation as the worker's, and no target can be read (each step says why).
        const compiled = compileGovernance(section, calendarFileReader(path.dirname(file)));
        if (!compiled.ok)
          throw new CliError(
            'CLI_USAGE',
            `invalid policies in ${file}: ${compiled.problems.join('; ')}`,
            'the worker refuses this configuration too; fix the policies or calendars it names',
          );
        unreadable = `no Cloud API settings to read it with: ${oneLine(error)}`;
        return { governance: compiled.governance, configFile: file };
      }
      return loaded.governance === undefined
        ? undefined
        : { governance: loaded.governance, configFile: loaded.configFile ?? file };
    },
    defaultProjectId: () => load().cloud.defaultProjectId,
    async lister(projectId) {
      try {
        const services = await clients()
          .forProject(projectId)
          .call('service.list', { project_id: projectId });
        return JSON.parse(JSON.stringify(services)) as JsonValue[];
      } catch (error) {
        throw listingError(error, projectId);
      }
    },
    async readResource(projectId, action, id) {
      const client = clients().forProject(projectId);
      const answer =
        action === 'vpc.get'
          ? await client.call('vpc.get', { project_id: projectId, vpc_id: id })
          : await client.call('service.get', { project_id: projectId, service_id: id });
      return JSON.parse(JSON.stringify(answer)) as Record<string, unknown>;
    },
    async readTarget(projectId, serviceId): Promise<PolicyTargetRead> {
      if (unreadable !== undefined) return { ok: false, reason: unreadable, sent: false };
      let service;
      try {
        service = await clients()
          .forProject(projectId)
          .call('service.get', { project_id: projectId, service_id: serviceId });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const unsent = error instanceof CloudApiError && error.code === 'CLOUD_API_CONFIG';
        return { ok: false, reason: `service.get failed: ${message}`, sent: !unsent };
      }
      // The fields the worker gives its rules.
      return { ok: true, service: serviceAsTarget(serviceId, service) };
    },
  };
}
