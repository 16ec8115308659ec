// How `tideline plan --resolve-targets` lists a project's services: with the Cloud API endpoint and
// the project's credentials from the worker's configuration (--config / TIDELINE_CONFIG and the
// TIDELINE_CLOUD_* variables), the same settings `tideline worker` runs with, and only the
// read-only `service.list`. Failures become CLI errors with stable codes: a configuration without
// the project is bad usage (exit 2), an API that cannot answer is unavailable (exit 3).
import type { JsonValue } from '../../dsl/expressions';
import { CloudApiError } from '../../cloud/errors';
import { loadWorkerConfig } from '../../worker/config';
import { createCloudClientResolver } from '../../worker/cloud-clients';
import { WorkerError } from '../../worker/errors';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { settingsEnvironment } from '../settings';
import type { ServiceLister } from './plan-targets';

const CONFIG_HINT =
  'give the Cloud API as the worker has it: --config FILE (cloud.baseUrl, cloud.projects), or TIDELINE_CLOUD_URL with TIDELINE_CLOUD_PROJECT_ID and its keys';

function listingError(error: unknown, projectId: string): CliError {
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

/** A lister over the configured Cloud API; the configuration is read at the first listing. */
export function cloudServiceLister(ctx: Pick<CliContext, 'globals' | 'env' | 'cwd'>): ServiceLister {
  let resolver: ReturnType<typeof createCloudClientResolver> | undefined;
  return async (projectId) => {
    try {
      resolver ??= createCloudClientResolver(loadWorkerConfig({ env: settingsEnvironment(ctx) }).cloud);
      const services = await resolver.forProject(projectId).call('service.list', { project_id: projectId });
      return JSON.parse(JSON.stringify(services)) as JsonValue[];
    } catch (error) {
      throw listingError(error, projectId);
    }
  };
}
