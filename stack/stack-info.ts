// What `tideline dev` tells the user about the running stack: one JSON object (`--json`, the
// first stdout line) or a short human summary with the commands to try next. The local cloud's
// secret key is shown on purpose: it is a development credential of this local cloud only.
import { SHARED_DEFAULTS } from '../worker/shared-settings';
import type { DevStack } from './dev-stack';

export interface StackInfo {
  temporal: { address: string; namespace: string; webUiUrl: string; dbFile: string | null };
  cloud: {
    url: string;
    controlUrl: string;
    /** `Authorization: Bearer <controlToken>` for the control API (/__sim). */
    controlToken: string;
    stateFile: string | null;
    /** Local development credentials, valid only against this local cloud. */
    projects: { id: string; name: string; access_key: string; secret_key: string }[];
  };
  worker: { taskQueue: string; encryptionKey: string; keySource: string; keyFile: string | null };
  /**
   * The codec server the Web UI decrypts payloads with; null with --no-codec-server. A local tool
   * sends `Authorization: Bearer <token>` to `<endpoint>/decode`: the token is TIDELINE_CODEC_TOKEN
   * when `tideline dev` started with it, otherwise one nobody is shown (only the Web UI decrypts,
   * through a secret endpoint of its own).
   */
  codec: { endpoint: string } | null;
}

export function stackInfo(stack: DevStack): StackInfo {
  return {
    temporal: {
      address: stack.temporal.address,
      namespace: stack.temporal.namespace,
      webUiUrl: stack.temporal.webUiUrl,
      dbFile: stack.temporal.dbFile ?? null,
    },
    cloud: {
      url: stack.cloud.url,
      controlUrl: stack.cloud.controlUrl,
      // The dev stack always serves the control API (it never passes `control: false`).
      controlToken: stack.cloud.controlToken ?? '',
      stateFile: stack.cloudStateFile ?? null,
      projects: stack.cloud.projects.map(({ id, name, access_key, secret_key }) => ({
        id,
        name,
        access_key,
        secret_key,
      })),
    },
    worker: {
      taskQueue: stack.taskQueue,
      encryptionKey: stack.keys.keyRing.currentKeyId,
      keySource: stack.keys.source,
      keyFile: stack.keys.file ?? null,
    },
    codec: stack.codec === undefined ? null : { endpoint: stack.codec.endpoint },
  };
}

/** The client flags that reach this stack (only those that differ from the defaults, plus the address). */
export function clientFlags(info: StackInfo): string {
  const flags = [`--address ${info.temporal.address}`];
  if (info.temporal.namespace !== SHARED_DEFAULTS.namespace)
    flags.push(`--namespace ${info.temporal.namespace}`);
  if (info.worker.taskQueue !== SHARED_DEFAULTS.taskQueue)
    flags.push(`--task-queue ${info.worker.taskQueue}`);
  return flags.join(' ');
}

export function renderStackInfo(info: StackInfo): string {
  const project = info.cloud.projects[0];
  const flags = clientFlags(info);
  const lines = [
    'tideline dev stack is running (Ctrl-C stops everything).',
    '',
    `  Temporal     ${info.temporal.address}   namespace "${info.temporal.namespace}"`,
    `  Web UI       ${info.temporal.webUiUrl}`,
    `  Codec server ${info.codec === null ? 'off (payloads show encrypted in the Web UI)' : `${info.codec.endpoint}   (the Web UI decrypts payloads through it; anything else sends Authorization: Bearer $TIDELINE_CODEC_TOKEN, set before tideline dev)`}`,
    `  Local cloud  ${info.cloud.url}`,
  ];
  for (const p of info.cloud.projects) {
    lines.push(`    project    ${p.id} (${p.name})`);
    lines.push(`    access key ${p.access_key}`);
    lines.push(`    secret key ${p.secret_key}   (a local development credential of this local cloud only)`);
  }
  lines.push(
    `  Worker       task queue "${info.worker.taskQueue}", payload key "${info.worker.encryptionKey}" (${info.worker.keySource}${info.worker.keyFile ? `: ${info.worker.keyFile}` : ''})`,
  );
  if (info.temporal.dbFile !== null) {
    lines.push(
      `  Kept in      ${info.temporal.dbFile} (Temporal) and ${info.cloud.stateFile ?? '-'} (local cloud)`,
    );
  }
  if (project !== undefined) {
    const auth = `${project.access_key}:${project.secret_key}`;
    lines.push(
      '',
      'Try it (in another terminal, from the repository):',
      `  tideline run runbooks/stop-dev-services.yaml ${flags} -i project_id=${project.id}`,
      '  # a VPC for provision-production-service:',
      `  curl -su ${auth} -H 'content-type: application/json' \\`,
      `    -d '{"name":"main","cidr":"10.0.0.0/16","region_code":"us-east-1"}' ${info.cloud.url}/projects/${project.id}/vpcs`,
      `  tideline run runbooks/provision-production-service.yaml ${flags} \\`,
      `    -i project_id=${project.id} -i name=orders -i vpc_id=<id from the answer above>`,
      `  tideline list ${flags}`,
      '  # a worker of your own, on another task queue (`tideline run … --task-queue mine`); plain',
      '  # http reaches the local cloud only with allowInsecureLoopback (docs/worker.md):',
      `  TEMPORAL_ADDRESS=${info.temporal.address}${info.temporal.namespace !== SHARED_DEFAULTS.namespace ? ` TEMPORAL_NAMESPACE=${info.temporal.namespace}` : ''} TIDELINE_TASK_QUEUE=mine \\`,
      `    TIDELINE_CLOUD_URL=${info.cloud.url} TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK=1 \\`,
      `    TIDELINE_CLOUD_PROJECT_ID=${project.id} TIDELINE_CLOUD_ACCESS_KEY=${project.access_key} TIDELINE_CLOUD_SECRET_KEY=${project.secret_key} \\`,
      '    tideline worker',
      `Runs show up in the Web UI: ${info.temporal.webUiUrl}/namespaces/${info.temporal.namespace}/workflows`,
      info.codec === null
        ? '(payloads are encrypted; `tideline status ID` shows them decrypted).'
        : '(payloads are stored encrypted; the Web UI shows them decrypted through the codec server).',
    );
  }
  return `${lines.join('\n')}\n`;
}
