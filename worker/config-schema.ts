// The worker configuration's schema and how environment variables are laid over the file's
// content. Checked in one pass so that every problem is reported at once.
import { z } from 'zod';
import { AGENT_KEY_NAME, isAgentName } from '../contract/approval-messages';
import { parseBaseUrl } from '../cloud/base-url';
import { Secret } from '../cloud/redact';
import { SHARED_DEFAULTS, sharedFileFields } from './shared-settings';
import { NOTIFICATION_EVENTS, NOTIFICATION_TARGET_NAME } from '../dsl/notify-subscriptions';

export const DEFAULT_TASK_QUEUE = SHARED_DEFAULTS.taskQueue;

const NO_CREDENTIALS =
  'no Cloud API credentials (set TIDELINE_CLOUD_PROJECT_ID with TIDELINE_CLOUD_ACCESS_KEY and ' +
  'TIDELINE_CLOUD_SECRET_KEY, or with TIDELINE_CLOUD_BEARER_TOKEN; or list projects in the file ' +
  'named by TIDELINE_CONFIG)';

const CloudBaseUrl = z.string().min(1, 'must not be empty');

const SecretText = z
  .string()
  .min(1, 'must not be empty')
  .transform((value) => new Secret(value));

/** What the client sends as `Authorization: Bearer <token>`; the message never quotes the value. */
const BearerToken = z
  .string()
  .min(1, { message: 'must not be empty', abort: true })
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (the token alone, without "Bearer ")')
  .transform((value) => new Secret(value));

/** What a project entry has besides its credentials. */
interface ProjectExtras {
  baseUrl?: string | undefined;
  rateLimit?: z.infer<typeof RateLimitEntry> | undefined;
}

/** A project authenticates with its key pair (HTTP Basic, the default) or with a bearer token. */
export type ProjectCredentials =
  | { accessKey: string; secretKey: Secret; bearerToken?: undefined }
  | { bearerToken: Secret; accessKey?: undefined; secretKey?: undefined };

/** A project's API budget, shared by every run and worker (cloud/rate-limiter.ts). */
const RateLimitEntry = z.strictObject({
  callsPerSecond: z.number().positive('must be above 0').max(10_000).optional(),
  concurrentCalls: z.number().int().min(1, 'must be at least 1').max(10_000).optional(),
});

const ProjectEntry = z
  .strictObject({
    accessKey: z.string().min(1, 'must not be empty').optional(),
    secretKey: SecretText.optional(),
    bearerToken: BearerToken.optional(),
    /** Only when this project lives behind another API endpoint than `cloud.baseUrl`. */
    baseUrl: CloudBaseUrl.optional(),
    /** This project's API budget (default: `cloud.rateLimit`). */
    rateLimit: RateLimitEntry.optional(),
  })
  .transform((project, ctx): ProjectCredentials & ProjectExtras => {
    const { accessKey, secretKey, bearerToken, baseUrl, rateLimit } = project;
    // `input` is left out: an issue never carries the secret it is about.
    const problem = (path: string[], message: string): never => {
      ctx.issues.push({ code: 'custom', path, message, input: undefined });
      return z.NEVER;
    };
    if (bearerToken !== undefined) {
      if (accessKey !== undefined || secretKey !== undefined)
        return problem(
          [],
          'give either accessKey and secretKey, or bearerToken, not both (remove one of them)',
        );
      return { bearerToken, baseUrl, rateLimit };
    }
    if (accessKey === undefined && secretKey === undefined)
      return problem([], 'no credentials: give accessKey and secretKey, or bearerToken');
    const instead = 'or give bearerToken alone instead of the key pair';
    if (accessKey === undefined) return problem(['accessKey'], `required with secretKey (${instead})`);
    if (secretKey === undefined) return problem(['secretKey'], `required with accessKey (${instead})`);
    return { accessKey, secretKey, baseUrl, rateLimit };
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
    /** Every project's API budget unless its entry has its own. */
    rateLimit: RateLimitEntry.optional(),
    projects: z.record(z.string().min(1), ProjectEntry).optional(),
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

/** Worker capacity for many concurrent runs (docs/performance.md). */
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

const PERSON_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

const ApproverName = z
  .string()
  .refine((name) => !isAgentName(name), {
    message: 'is an agent (mcp:…), a name only approvals.keys takes: agents never approve',
    abort: true,
  })
  .regex(PERSON_NAME, 'must be a name (letters, digits, . _ @ -), without group:');

/**
 * A name that holds a key: a person (who signs starts and approvals) or an agent, `mcp:<client>`
 * (whose starts `tideline mcp` signs; the worker never counts its decisions).
 */
const KeyHolderName = z
  .string()
  .refine(
    (name) => PERSON_NAME.test(name) || AGENT_KEY_NAME.test(name),
    'must be a person (letters, digits, . _ @ -) or an agent (mcp: and letters, digits, . _ @ -)',
  );

/** An approver's public key as `tideline keys create` prints it. */
const ApprovalPublicKey = z
  .string()
  .regex(
    /^ed25519:[A-Za-z0-9+/]{43}=$/,
    'must be ed25519:<base64 of 32 bytes>, as `tideline keys create` prints it',
  );

/**
 * Who may approve steps that name `approvers`: each person's public key(s) (several while one is
 * rotated) and the groups (`group:NAME` in a runbook). Here, not in runbooks, so that a runbook's
 * author cannot make themselves an approver.
 */
export const ApprovalsSection = z.strictObject({
  keys: z.record(KeyHolderName, z.union([ApprovalPublicKey, z.array(ApprovalPublicKey).min(1)])).optional(),
  groups: z.record(ApproverName, z.array(ApproverName)).optional(),
});

/** A definition hash as `tideline catalog list` prints it (SHA-256, hex). */
const DefinitionHash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 in hex, as `tideline catalog list` prints it');

/**
 * The runbooks this worker runs (`catalog:`): folders or files, relative to the configuration file,
 * each file optionally pinned to its definition hash. Without it (or with `development: true`) the
 * worker runs any definition a client sends: a development setting.
 */
export const CatalogSection = z
  .strictObject({
    runbooks: z
      .array(
        z.union([z.string().min(1), z.strictObject({ path: z.string().min(1), sha256: DefinitionHash })]),
      )
      .optional(),
    development: z.boolean().optional(),
  })
  .refine((section) => section.development === true || (section.runbooks?.length ?? 0) > 0, {
    message: 'name the runbooks this worker runs (runbooks: [folder, …]) or say development: true',
  });

/** A webhook's URL: a secret (whoever has it can post), so it is never printed or recorded. */
const WebhookUrl = z
  .string()
  .min(1, { message: 'must not be empty', abort: true })
  .refine(
    (value) => URL.canParse(value) && ['https:', 'http:'].includes(new URL(value).protocol),
    'must be an http(s) URL',
  )
  .transform((value) => new Secret(value));

const NotificationTarget = z.strictObject({
  /** `webhook`: the event as JSON; `slack`: a Slack-compatible incoming webhook (`{text}`). */
  type: z.enum(['webhook', 'slack']),
  url: WebhookUrl,
  /** Which events it hears (default all). */
  events: z.array(z.enum(NOTIFICATION_EVENTS)).min(1).optional(),
  /**
   * Runbooks (names, `*` and `?` wildcards as in `targets` names) whose runs it hears without naming it (default every runbook;
   * `[]`: only runbooks that name it in `notify:`).
   */
  runbooks: z
    .array(z.string().regex(/^[A-Za-z0-9*._-]+$/, 'must be a runbook name or a * pattern'))
    .optional(),
});

/** Where runs tell about themselves (`notifications:`; activities/notify.ts). */
export const NotificationsSection = z.strictObject({
  targets: z.record(
    z.string().regex(NOTIFICATION_TARGET_NAME, 'must be a name (letters, digits, . _ -)'),
    NotificationTarget,
  ),
  /** The Web UI's base URL, for links in notifications (e.g. http://127.0.0.1:8233). */
  webUiUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** How often a delivery is tried (default 5) and the first pause between tries (default 2 s). */
  maxAttempts: z.number().int().min(1).max(20).optional(),
  retryIntervalMs: z.number().int().min(10).max(600_000).optional(),
});

/**
 * The state files this worker watches for drift (`drift:`): files or folders of `kind: State`
 * files, relative to the configuration file, read and checked at start; and the notification
 * targets that hear drift appear and clear (`tideline drift-watch` starts a watcher by state name).
 */
export const DriftSection = z.strictObject({
  states: z.array(z.string().min(1)).min(1),
  notify: z
    .array(z.string().regex(NOTIFICATION_TARGET_NAME, 'must be a name (letters, digits, . _ -)'))
    .optional(),
  /**
   * Who the repair runs of rules with `repair.auto` start as: a name of `approvals.keys` and the
   * file of its Ed25519 private key (relative to the configuration file), which signs each start.
   */
  repairAs: z
    .strictObject({
      by: ApproverName,
      key: z.string().min(1),
    })
    .optional(),
});

export const WorkerConfigSchema = z.strictObject({
  /** `taskQueue` and `temporal: { address, namespace }`, shared with the CLI (shared-settings.ts). */
  ...sharedFileFields,
  /** Passed to the Temporal worker as they are; absent ones keep the SDK's defaults. */
  tuning: WorkerTuningSchema.optional(),
  metricsAddress: HostPort.optional(),
  cloud: CloudSection,
  approvals: ApprovalsSection.optional(),
  notifications: NotificationsSection.optional(),
  catalog: CatalogSection.optional(),
  drift: DriftSection.optional(),
  /** Policy rules and the calendars they name: checked by dsl/policies.ts (compileGovernance). */
  policies: z.unknown().optional(),
  calendars: z.unknown().optional(),
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
    problems.push(
      'cloud.projects: must be a mapping of project id to { accessKey, secretKey } or { bearerToken }',
    );
  }
  if (env.TIDELINE_CLOUD_URL) cloud.baseUrl = env.TIDELINE_CLOUD_URL;
  const insecure = flagIsOn(env.TIDELINE_CLOUD_ALLOW_INSECURE_LOOPBACK);
  if (insecure !== undefined) cloud.allowInsecureLoopback = insecure;

  const project = envProject(env, problems);
  if (project !== undefined) {
    projects[project.id] = project.credentials;
    cloud.defaultProject = project.id;
  }
  // TIDELINE_TASK_QUEUE and TEMPORAL_* are laid over the file by resolveSharedSettings.
  return {
    ...file,
    ...(env.TIDELINE_METRICS_ADDRESS ? { metricsAddress: env.TIDELINE_METRICS_ADDRESS } : {}),
    cloud,
  };
}

/** Names of the variables in `names` that are set (not empty). */
function setVariables(env: NodeJS.ProcessEnv, names: readonly string[]): string[] {
  return names.filter((name) => env[name] !== undefined && env[name] !== '');
}

/**
 * The one project the environment gives: TIDELINE_CLOUD_PROJECT_ID with either the key pair
 * (TIDELINE_CLOUD_ACCESS_KEY + TIDELINE_CLOUD_SECRET_KEY) or TIDELINE_CLOUD_BEARER_TOKEN. An
 * incomplete or doubled set is a problem naming the variables (never their values).
 */
function envProject(
  env: NodeJS.ProcessEnv,
  problems: string[],
): { id: string; credentials: Record<string, string | undefined> } | undefined {
  const id = env.TIDELINE_CLOUD_PROJECT_ID || undefined;
  const keyNames = ['TIDELINE_CLOUD_ACCESS_KEY', 'TIDELINE_CLOUD_SECRET_KEY'] as const;
  const keys = setVariables(env, keyNames);
  const token = env.TIDELINE_CLOUD_BEARER_TOKEN || undefined;
  if (token !== undefined) {
    if (keys.length > 0) {
      problems.push(
        `TIDELINE_CLOUD_BEARER_TOKEN is set together with ${keys.join(' and ')}: a project ` +
          'authenticates with the key pair or with the bearer token, not both (unset one kind)',
      );
    } else if (id === undefined) {
      problems.push('TIDELINE_CLOUD_PROJECT_ID must be set too (the bearer token is for one project)');
    } else {
      return { id, credentials: { bearerToken: token } };
    }
    return undefined;
  }
  const given = setVariables(env, ['TIDELINE_CLOUD_PROJECT_ID', ...keyNames]);
  if (given.length === 3 && id !== undefined) {
    return {
      id,
      credentials: { accessKey: env.TIDELINE_CLOUD_ACCESS_KEY, secretKey: env.TIDELINE_CLOUD_SECRET_KEY },
    };
  }
  if (given.length > 0) {
    const missing = ['TIDELINE_CLOUD_PROJECT_ID', ...keyNames].filter((name) => !given.includes(name));
    const instead = keys.length === 0 ? ', or TIDELINE_CLOUD_BEARER_TOKEN instead of the key pair' : '';
    problems.push(
      `${missing.join(' and ')} must be set too (the three TIDELINE_CLOUD_* credentials go together${instead})`,
    );
  }
  return undefined;
}

export function issueText(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(top level)';
  // A record's key that fails its schema: say why (zod's own message names no rule).
  if (issue.code === 'invalid_key' && issue.issues.length > 0)
    return `${where}: the name ${issue.issues.map((inner) => inner.message).join('; ')}`;
  return `${where}: ${issue.message}`;
}
