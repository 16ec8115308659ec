// The local cloud's configuration: a zod schema (the file format, YAML or JSON) and its loader.
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { Dialect } from './dialect';
import { FaultRuleInput } from './fault-schema';

const ms = (fallback: number) => z.number().int().min(0).max(86_400_000).default(fallback);

/**
 * How long each transition takes, in milliseconds before scaling by `timeScale`.
 * Defaults make a create take about three seconds, so a demo is watchable.
 */
export const Durations = z.strictObject({
  /** create / fork: QUEUED → CONFIGURING */
  queued: ms(1000),
  /** create / fork: CONFIGURING → READY */
  configuring: ms(2000),
  /** resize: CONFIGURING → READY */
  resize: ms(1500),
  /** setHA: CONFIGURING → READY */
  setHA: ms(1500),
  /** attachToVPC: CONFIGURING → READY */
  vpcAttach: ms(1500),
  /** detachFromVPC: CONFIGURING → READY */
  vpcDetach: ms(1000),
  /** enable / disable pooler: CONFIGURING → READY */
  pooler: ms(1000),
  /** stop: PAUSING → PAUSED */
  pausing: ms(1000),
  /** start: RESUMING → READY */
  resuming: ms(1000),
  /** delete: DELETING → gone (404) */
  deleting: ms(1000),
  /** replica set create: creating → active */
  replicaSetCreating: ms(2000),
  /** replica set resize: resizing → active */
  replicaSetResizing: ms(1500),
  /** replica set delete: deleting → gone */
  replicaSetDeleting: ms(1000),
  /** peering: pending → active (or failed) */
  peeringPending: ms(2000),
  /** A new VPC refuses peerings (409) for this long. */
  vpcProvisioning: ms(500),
  /** A service's first snapshot exists this long after it first became READY (LAST_SNAPSHOT forks, replicas). */
  firstSnapshot: ms(5000),
});
export type Durations = z.output<typeof Durations>;
export type DurationName = keyof Durations;

export const LogsConfig = z.strictObject({
  /** One generated log entry per this many real milliseconds of a service's age (not scaled). */
  intervalMs: z.number().int().min(1).max(3_600_000).default(1000),
  /** A service never has more entries than this. */
  maxEntries: z.number().int().min(1).max(1_000_000).default(5000),
});
export type LogsConfig = z.output<typeof LogsConfig>;

export const ProjectConfig = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9]{10}$/, 'must be 10 lowercase letters or digits')
    .optional(),
  name: z.string().min(1).max(128).default('default'),
  /** Generated when absent (printed once, on the first stdout line of the CLI). */
  access_key: z.string().min(1).max(256).optional(),
  secret_key: z.string().min(8).max(256).optional(),
  /**
   * Also accepted as `Authorization: Bearer <bearer_token>` for this project, besides the key
   * pair. The real API issues JWTs; the local cloud does not verify signatures or claims: any
   * configured opaque string is a valid token, compared whole. Never generated.
   */
  bearer_token: z
    .string()
    .regex(/^[\x21-\x7e]{16,4096}$/, 'must be 16 to 4096 printable ASCII characters without spaces')
    .optional(),
});
export type ProjectConfig = z.output<typeof ProjectConfig>;

/** Access keys, bearer tokens and ids must be unique; keys are given in pairs or generated in pairs. */
const Projects = z.array(ProjectConfig).superRefine((projects, ctx) => {
  const seenKeys = new Set<string>();
  const seenIds = new Set<string>();
  const seenTokens = new Set<string>();
  projects.forEach((project, index) => {
    if (project.bearer_token !== undefined) {
      if (seenTokens.has(project.bearer_token)) {
        ctx.addIssue({ code: 'custom', path: [index, 'bearer_token'], message: 'duplicate bearer_token' });
      }
      seenTokens.add(project.bearer_token);
    }
    if (project.access_key !== undefined) {
      if (seenKeys.has(project.access_key)) {
        ctx.addIssue({ code: 'custom', path: [index, 'access_key'], message: 'duplicate access_key' });
      }
      seenKeys.add(project.access_key);
    }
    if (project.id !== undefined) {
      if (seenIds.has(project.id)) {
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'duplicate project id' });
      }
      seenIds.add(project.id);
    }
    if ((project.access_key === undefined) !== (project.secret_key === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [index],
        message: 'give both access_key and secret_key, or neither (then both are generated)',
      });
    }
  });
});

export const LocalCloudConfig = z.strictObject({
  /** Seed of the ID and fault generators; random when absent. */
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
  /** Multiplies every duration: 0.01 runs lifecycles 100× faster, 2 twice as slow. */
  timeScale: z.number().positive().max(1000).default(1),
  /**
   * Which shape of answers to send: the real API's as it answers today (`current`, the default) or
   * spec.md's (`seed`, which the vendor's tiger-cli v0.21.2 speaks).
   */
  dialect: Dialect.default('current'),
  /** Region of services and VPCs created without `region_code`. */
  defaultRegion: z.string().min(1).default('us-east-1'),
  /** Projects and their key pairs; one generated project when empty. */
  projects: Projects.default([]),
  durations: Durations.prefault({}),
  logs: LogsConfig.prefault({}),
  faults: z.array(FaultRuleInput).default([]),
  /** Bearer token of the control API (/__sim); a random one per start when absent. */
  controlToken: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 printable ASCII characters without spaces')
    .optional(),
});
export type LocalCloudConfigInput = z.input<typeof LocalCloudConfig>;
export type LocalCloudConfig = z.output<typeof LocalCloudConfig>;

export class LocalCloudConfigError extends Error {
  readonly code = 'LOCAL_CLOUD_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'LocalCloudConfigError';
  }
}

/** `a.b[0]: problem; …` — zod issues as one line, never echoing the offending values. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
      const field = path.replace(/^\./, '');
      return field ? `${field}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

export function parseConfig(input: unknown, source = 'config'): LocalCloudConfig {
  const result = LocalCloudConfig.safeParse(input ?? {});
  if (!result.success) throw new LocalCloudConfigError(`${source}: ${formatIssues(result.error.issues)}`);
  return result.data;
}

/** Reads a YAML or JSON config file (YAML is a superset of JSON, so one parser serves both). */
export async function loadConfigFile(path: string): Promise<LocalCloudConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new LocalCloudConfigError(`config file ${path}: cannot read it (${reason})`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'syntax error';
    throw new LocalCloudConfigError(`config file ${path}: not valid YAML/JSON: ${reason}`);
  }
  return parseConfig(raw, `config file ${path}`);
}
