// The typed Cloud API client. Every method is generated from the operation catalogue: `call(action,
// input)` for any action, and `client.<group>.<method>(input)` (e.g. `client.service.create`) as
// typed shortcuts. The client never retries; callers (activities) decide from the error code.
import { inspect } from 'node:util';
import { parseBaseUrl } from './base-url';
import { CloudApiError } from './errors';
import { HttpTransport, type HttpCredentials } from './http';
import { isCheckedInput, splitActionInput, validateActionInput, type SplitInput } from './action-input';
import {
  ACTION_NAMES,
  operations,
  type ActionInput,
  type ActionName,
  type ActionOutput,
  type OperationDef,
} from './operations';
import { collectSecretValues, redact, REDACTED, Secret } from './redact';
import { formatPath, interpretAnswer } from './response';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** setTimeout's ceiling; longer deadlines would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Where the API is, and how to authenticate: either the key pair (`accessKey` and `secretKey`,
 * HTTP Basic, the default) or `bearerToken`, never both (a CLOUD_API_CONFIG error otherwise).
 */
export interface CloudClientOptions {
  /** e.g. `https://api.example.com/public/api/v1` (a trailing slash is fine). */
  baseUrl: string;
  /** HTTP Basic user name (the public key). */
  accessKey?: string | undefined;
  /** HTTP Basic password. Never printed; may be given as a `Secret`. */
  secretKey?: string | Secret | undefined;
  /**
   * Instead of the key pair: sent as `Authorization: Bearer <token>` (a JWT the API issued), the
   * token alone without `Bearer `. Never printed; may be given as a `Secret`.
   */
  bearerToken?: string | Secret | undefined;
  /** Deadline per request, covering connect, headers and body. Default 30 s. */
  timeoutMs?: number | undefined;
  /** Permit plain `http://` to a loopback host (the local cloud). Default false. */
  allowInsecureLoopback?: boolean | undefined;
  /** Check inputs against the request schemas before sending. Default true. */
  validateRequests?: boolean | undefined;
}

export interface CallOptions {
  /** Cancels the request; the call then rejects with `signal.reason` unchanged. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's deadline for this call. */
  timeoutMs?: number | undefined;
  /**
   * What validateActionInput returned for this action and this input, when the caller has just
   * checked it (the activities do): the client sends it instead of validating the input a second
   * time. Only a split validateActionInput made for this very action and input object is taken;
   * anything else is ignored and the input is validated as usual.
   */
  checkedInput?: SplitInput | undefined;
  /** Told the HTTP status of the answer as soon as it arrives (call spans record it); nothing else. */
  onStatus?: ((status: number) => void) | undefined;
  /**
   * `false`: the successful answer's JSON as it arrived, not read with the operation's response
   * schema, so not of the action's output type — for a caller that picks a few fields out of a
   * long list and checks only what it keeps (cloud/response.ts `readAnswerPart`).
   */
  checkBody?: boolean | undefined;
  /**
   * With `checkBody: false` on a list: string values every element the caller keeps holds. When
   * the answer's text proves one of them is in no element, the answer is not parsed and reads as
   * [] (cloud/response.ts `answerLacksOneOf`).
   */
  elementsHolding?: readonly string[] | undefined;
}

/** Anything that can perform Cloud API actions: the client, or a test double of it. */
export interface CloudCaller {
  call<A extends ActionName>(
    action: A,
    input: ActionInput<A>,
    options?: CallOptions,
  ): Promise<ActionOutput<A>>;
}

type GroupOf<A> = A extends `${infer G}.${string}` ? G : never;
/** `project`, `vpc`, `peering`, `service`, `replicaSet`. */
export type ActionGroupName = GroupOf<ActionName>;
type MethodsOf<G extends string> = ActionName extends infer A
  ? A extends `${G}.${infer M}`
    ? M
    : never
  : never;

export type ActionMethod<A extends ActionName> = (
  input: ActionInput<A>,
  options?: CallOptions,
) => Promise<ActionOutput<A>>;

/** `client.service.create(...)`, `client.vpc.list(...)`…: one typed method per catalogue action. */
export type CloudClientGroups = {
  readonly [G in ActionGroupName]: {
    readonly [M in MethodsOf<G>]: ActionMethod<Extract<ActionName, `${G}.${M}`>>;
  };
};

export type CloudClient = CloudClientBase & CloudClientGroups;

export function createCloudClient(options: CloudClientOptions): CloudClient {
  return new CloudClientBase(options) as CloudClient;
}

/** The options as `redactOptions` gives them: a given secret key or bearer token reads `[REDACTED]`. */
export type RedactedCloudClientOptions = Omit<CloudClientOptions, 'secretKey' | 'bearerToken'> & {
  secretKey?: string;
  bearerToken?: string;
};

/** A copy of the options that is safe to print or serialise: the secret key or token is replaced. */
export function redactOptions(options: CloudClientOptions): RedactedCloudClientOptions {
  const { secretKey, bearerToken, ...rest } = options;
  return {
    ...rest,
    ...(secretKey !== undefined ? { secretKey: REDACTED } : {}),
    ...(bearerToken !== undefined ? { bearerToken: REDACTED } : {}),
  };
}

function configError(message: string): CloudApiError {
  return new CloudApiError({ code: 'CLOUD_API_CONFIG', message });
}

/** Printable ASCII without spaces: what an HTTP header carries safely (a JWT is base64url and dots). */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

/** The transport's credentials from the options; a CLOUD_API_CONFIG error unless exactly one kind. */
function credentialsOf(options: CloudClientOptions): HttpCredentials {
  // Read as unknown: JavaScript callers and configuration may hand over anything.
  const { accessKey, secretKey, bearerToken }: { [K in keyof CloudClientOptions]?: unknown } = options;
  if (bearerToken !== undefined) {
    if (accessKey !== undefined || secretKey !== undefined) {
      throw configError('give either accessKey and secretKey (HTTP Basic) or bearerToken, not both');
    }
    const token = bearerToken instanceof Secret ? bearerToken.reveal() : bearerToken;
    if (typeof token !== 'string' || !TOKEN_CHARACTERS.test(token)) {
      throw configError(
        'bearerToken must be a non-empty string of printable ASCII without spaces (the token alone, without "Bearer ")',
      );
    }
    return { scheme: 'Bearer', token };
  }
  if (typeof accessKey !== 'string' || accessKey === '' || accessKey.includes(':')) {
    throw configError('accessKey must be a non-empty string without ":" (or give bearerToken instead)');
  }
  const secret = secretKey instanceof Secret ? secretKey.reveal() : secretKey;
  if (typeof secret !== 'string' || secret === '') throw configError('secretKey must be a non-empty string');
  return { scheme: 'Basic', accessKey, secretKey: secret };
}

function checkTimeout(value: number, what: string): number {
  if (!Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw configError(`${what} must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

export class CloudClientBase implements CloudCaller {
  /** The normalised base URL (origin + path prefix, no trailing slash). */
  readonly baseUrl: string;
  /** The key pair's public half; undefined for a client that authenticates with a bearer token. */
  readonly accessKey: string | undefined;
  readonly timeoutMs: number;
  readonly #transport: HttpTransport;
  readonly #basePath: string;
  readonly #validateRequests: boolean;
  readonly #usesBearerToken: boolean;
  /** The secret key and its Basic token, or the bearer token: scrubbed from every message. */
  readonly #secrets: readonly string[];
  #closed = false;

  constructor(options: CloudClientOptions) {
    const parsed = parseBaseUrl(options.baseUrl, options.allowInsecureLoopback === true);
    const credentials = credentialsOf(options);
    this.baseUrl = parsed.href;
    this.accessKey = credentials.scheme === 'Basic' ? credentials.accessKey : undefined;
    this.#usesBearerToken = credentials.scheme === 'Bearer';
    this.timeoutMs = checkTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.#basePath = parsed.basePath;
    this.#validateRequests = options.validateRequests ?? true;
    this.#transport = new HttpTransport({ origin: parsed.origin, credentials });
    const secret = credentials.scheme === 'Basic' ? credentials.secretKey : credentials.token;
    this.#secrets = [secret, this.#transport.authorizationToken];
    for (const group of groupActions()) {
      Object.defineProperty(this, group.name, { value: this.#groupMethods(group.actions), enumerable: true });
    }
  }

  async call<A extends ActionName>(
    action: A,
    input: ActionInput<A>,
    options: CallOptions = {},
  ): Promise<ActionOutput<A>> {
    const def: OperationDef | undefined = Object.hasOwn(operations, action) ? operations[action] : undefined;
    if (def === undefined) throw configError(`unknown Cloud API action: ${String(action).slice(0, 64)}`);
    if (this.#closed) throw configError(`${action}: the Cloud API client is closed`);
    const flat = (input ?? {}) as Record<string, unknown>;
    const secrets = [...this.#secrets, ...collectSecretValues(flat)];
    const timeoutMs = checkTimeout(options.timeoutMs ?? this.timeoutMs, `timeoutMs of ${action}`);
    const checked = options.checkedInput;
    const split =
      checked !== undefined && isCheckedInput(checked, action, flat)
        ? checked
        : this.#split(action, flat, secrets);
    const answer = await this.#transport.send(
      {
        method: def.method,
        path: this.#basePath + buildPath(action, def, split),
        body: def.body !== undefined ? JSON.stringify(split.body ?? {}) : undefined,
      },
      { action, timeoutMs, signal: options.signal, secrets },
    );
    options.onStatus?.(answer.status);
    return interpretAnswer(answer, {
      action,
      def,
      secrets,
      checkBody: options.checkBody,
      elementsHolding: options.elementsHolding,
    }) as ActionOutput<A>;
  }

  /** Closes the kept-alive connections; waits for requests in flight. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#transport.close();
  }

  #split(action: ActionName, input: Record<string, unknown>, secrets: readonly string[]): SplitInput {
    if (!this.#validateRequests) return splitActionInput(action, input);
    const checked = validateActionInput(action, input);
    if (checked.ok) return checked.value;
    const problems = checked.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ');
    throw new CloudApiError({
      code: 'CLOUD_API_BAD_REQUEST',
      action,
      message: redact(`${action}: invalid input, not sent: ${problems}`, secrets),
    });
  }

  #groupMethods(actions: readonly { action: ActionName; method: string }[]): Record<string, unknown> {
    const methods: Record<string, ActionMethod<ActionName>> = {};
    for (const { action, method } of actions) {
      methods[method] = (input, options) => this.call(action, input, options);
    }
    return Object.freeze(methods);
  }

  toJSON(): Record<string, unknown> {
    const credentials = this.#usesBearerToken
      ? { bearerToken: REDACTED }
      : { accessKey: this.accessKey, secretKey: REDACTED };
    return { baseUrl: this.baseUrl, ...credentials, timeoutMs: this.timeoutMs };
  }

  toString(): string {
    return `CloudClient(${this.baseUrl})`;
  }

  [inspect.custom](): string {
    return `CloudClient ${inspect(this.toJSON())}`;
  }
}

/** The catalogue's actions grouped by their prefix: `service.create` → group `service`, method `create`. */
function groupActions(): { name: string; actions: { action: ActionName; method: string }[] }[] {
  const groups = new Map<string, { action: ActionName; method: string }[]>();
  for (const action of ACTION_NAMES) {
    const dot = action.indexOf('.');
    const name = action.slice(0, dot);
    const list = groups.get(name) ?? [];
    list.push({ action, method: action.slice(dot + 1) });
    groups.set(name, list);
  }
  return [...groups].map(([name, actions]) => ({ name, actions }));
}

/** The operation's path with each `{param}` URL-encoded, plus the query string if any. */
function buildPath(action: ActionName, def: OperationDef, split: SplitInput): string {
  const path = def.path.replace(/\{([a-z_]+)\}/g, (_match, name: string) => {
    const value = split.params[name];
    if (value === undefined || value === '') {
      throw new CloudApiError({
        code: 'CLOUD_API_BAD_REQUEST',
        action,
        message: `${action}: path parameter ${name} is missing`,
      });
    }
    return encodeURIComponent(value);
  });
  return path + queryString(split.query);
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      search.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
