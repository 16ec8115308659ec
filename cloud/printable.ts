// The one place that makes outside text safe for a terminal, a chat message or an agent's text
// answer: every view that prints user data (the CLI's, the MCP server's, notifications) goes
// through it; `--json` and structured answers do not (JSON encoding escapes already).
//
// Text that came from outside tideline (an approver's name or comment, an operator's reason, an
// error message that quotes them) made safe to print in a terminal line. Such text can be sent raw
// to Temporal by anyone who reaches the frontend, so printed as is a newline in it forges lines of
// output ("… counted (alice)"), an escape sequence rewrites or hides what the terminal shows, and a
// bidi override makes a line read in another order. Every such character is shown as a visible
// escape instead; everything else (spaces, accents, any script) is left as it is.
//
// Escaped: control characters (C0 with \n \r \t, DEL, C1, so ESC sequences lose their ESC),
// format characters (the bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069,
// the marks U+200E, U+200F and U+061C, zero-width and other invisible characters), the line and
// paragraph separators U+2028 and U+2029, and lone surrogates.
// A backslash is left as it is: `printable` keeps a line one line and visibly faithful, it is not
// a reversible encoding (use --json for the exact text).

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(char: string): string {
  return SHORT[char] ?? `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;
}

/** `text` with every control, format and separator character shown as `\n`, `\u{1b}`, `\u{202e}`. */
export function printable(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/**
 * `text` in double quotes, printable, with `"` and `\` inside escaped, so the quoted part ends
 * where the text ends and cannot pass the words after it off as its own.
 */
export function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(UNSAFE, escaped)}"`;
}

/**
 * `value` with every string in it (object keys included) made `printable`: what a view gets
 * before it formats a record that came from a run (a step key, a runbook name, an input's value,
 * an approval's message). Numbers, booleans and null are kept; `printable` is idempotent, so a
 * view may still escape a field it formats on its own.
 */
export function printableDeep<T>(value: T): T {
  return deep(value) as T;
}

function deep(value: unknown): unknown {
  if (typeof value === 'string') return printable(value);
  if (Array.isArray(value)) return value.map(deep);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[printable(key)] = deep(inner);
    return out;
  }
  return value;
}
