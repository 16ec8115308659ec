// How errors reach the user: a CliError as one line (plus its detail lines and a hint) on stderr,
// or as `{"error": {...}}` on stdout with --json. Anything unexpected is one line too; the stack
// trace only with TIDELINE_DEBUG=1.
import type { CliContext } from '../context';
import { printable } from '../../cloud/printable';

/** An error's text for the terminal: its own line breaks kept, anything else escaped. */
function shown(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** A CliError, or an error a command prints itself with its own code (e.g. APPROVAL_NOT_PENDING). */
export interface PrintableError {
  code: string;
  message: string;
  hint?: string | undefined;
  details: string[];
}

export interface ErrorJson {
  error: { code: string; message: string; hint?: string; details?: string[] };
}

export function errorJson(error: PrintableError): ErrorJson {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.hint !== undefined ? { hint: error.hint } : {}),
      ...(error.details.length > 0 ? { details: error.details } : {}),
    },
  };
}

/** Prints a known error (CliError or anything with the same fields). */
export function printCliError(ctx: CliContext, error: PrintableError): void {
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify(errorJson(error))}\n`);
    return;
  }
  // Messages quote names, inputs and reasons a run or a server sent: escaped (printable.ts).
  const lines = [`tideline: ${shown(error.message)}`, ...error.details.map((line) => `  ${shown(line)}`)];
  if (error.hint !== undefined) lines.push(`  hint: ${shown(error.hint)}`);
  ctx.stderr.write(`${lines.join('\n')}\n`);
}

export function debugEnabled(env: NodeJS.ProcessEnv): boolean {
  const value = env.TIDELINE_DEBUG;
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** An error nobody anticipated: one line, the stack only when debugging. */
export function printUnexpectedError(ctx: CliContext, error: unknown): void {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const summary = `unexpected error${typeof code === 'string' ? ` (${code})` : ''}: ${message}`;
  if (ctx.globals.json) {
    ctx.stdout.write(`${JSON.stringify({ error: { code: 'CLI_INTERNAL', message: summary } })}\n`);
  }
  if (debugEnabled(ctx.env) && error instanceof Error && error.stack) {
    ctx.stderr.write(`tideline: ${printable(summary)}\n${error.stack}\n`);
  } else {
    ctx.stderr.write(
      `tideline: ${printable(summary)}\n  hint: set TIDELINE_DEBUG=1 to see the stack trace\n`,
    );
  }
}
