// The one-line warning for a file holding secrets (keys.json, a worker config with a secret key)
// that other users can read. Shared, so every such file is warned about in the same words.
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
