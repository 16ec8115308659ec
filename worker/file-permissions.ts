// The one-line warning for a file holding secrets (keys.json, a worker config with a secret key or
// a bearer token) that other users can read. Shared, so every such file is warned about in the same
// words; the worker and the CLI (`--config`) warn about a config file alike.
import { statSync } from 'node:fs';

/** True when group or others have any permission on `file` (never on Windows, which has no modes). */
export function isOpenToOthers(file: string): boolean {
  if (process.platform === 'win32') return false;
  try {
    return (statSync(file).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Calls `notice` with the warning when `file` is readable by other users. `what` names it:
 * "key file" → "tideline: warning: key file F is readable by other users; run: chmod 600 F".
 * `why` is added after the file name, e.g. "(it holds a secret key)".
 */
export function warnIfOpenToOthers(
  file: string,
  what: string,
  notice: (line: string) => void,
  why?: string,
): void {
  if (isOpenToOthers(file)) {
    const subject = why === undefined ? `${what} ${file}` : `${what} ${file} ${why}`;
    notice(`tideline: warning: ${subject} is readable by other users; run: chmod 600 ${file}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kind of secret a parsed config file holds, if any: a Cloud API credential first. */
function configSecretKind(
  raw: unknown,
): 'Cloud API secret key' | 'Cloud API bearer token' | 'notification webhook URL' | undefined {
  const projects = isObject(raw) && isObject(raw.cloud) ? raw.cloud.projects : undefined;
  const entries = isObject(projects) ? Object.values(projects).filter(isObject) : [];
  if (entries.some((p) => p.secretKey !== undefined)) return 'Cloud API secret key';
  if (entries.some((p) => p.bearerToken !== undefined)) return 'Cloud API bearer token';
  return webhookUrls(raw) ? 'notification webhook URL' : undefined;
}

/** Whether the file's `notifications.targets` hold a URL (a secret: whoever has it can post). */
function webhookUrls(raw: unknown): boolean {
  const notifications = isObject(raw) ? raw.notifications : undefined;
  const targets = isObject(notifications) ? notifications.targets : undefined;
  return isObject(targets) && Object.values(targets).some((t) => isObject(t) && t.url !== undefined);
}

/** True when a parsed config file's `cloud.projects` hold a secret key or a bearer token. */
export function configHoldsSecret(raw: unknown): boolean {
  return configSecretKind(raw) !== undefined;
}

/** The config file warning: only when its content (`raw`, parsed) holds a secret key or token. */
export function warnIfSecretConfigOpen(file: string, raw: unknown, notice: (line: string) => void): void {
  const kind = configSecretKind(raw);
  if (kind !== undefined) warnIfOpenToOthers(file, 'config file', notice, `(it holds a ${kind})`);
}
