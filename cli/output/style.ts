// Small formatting helpers shared by every renderer: colours (only on a terminal, never with
// NO_COLOR), durations, clock times, masking of secret values, and width-safe truncation.
import type { CliContext } from '../context';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const plain = (text: string): string => text;
const PLAIN_STYLE: Style = { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const COLOUR_STYLE: Style = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  green: sgr(32, 39),
  red: sgr(31, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
};

/** Colours when stdout is a terminal, unless NO_COLOR is set (FORCE_COLOR forces them). */
export function styleFor(ctx: Pick<CliContext, 'stdout' | 'env'>): Style {
  if (ctx.env.NO_COLOR !== undefined && ctx.env.NO_COLOR !== '') return PLAIN_STYLE;
  if (ctx.env.FORCE_COLOR !== undefined && ctx.env.FORCE_COLOR !== '0') return COLOUR_STYLE;
  return ctx.stdout.isTTY === true ? COLOUR_STYLE : PLAIN_STYLE;
}

export { PLAIN_STYLE };

/** `850ms`, `4.2s`, `3m05s`, `1h02m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.floor(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, '0')}m`;
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** Local wall-clock time `14:03:07`. */
export function formatClock(epochMs: number): string {
  const date = new Date(epochMs);
  return [date.getHours(), date.getMinutes(), date.getSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}

/** ISO timestamp, or undefined. */
export function isoTime(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
}

// eslint-disable-next-line no-control-regex -- matching terminal escape sequences is the point
const ANSI = /\u001b\[[0-9;]*m/g;

/** Visible length (colour codes do not count). */
export function visibleLength(text: string): number {
  return [...text.replace(ANSI, '')].length;
}

/** Cuts a line to `width` visible characters (keeps colour codes balanced by resetting at the end). */
export function truncate(text: string, width: number): string {
  if (width <= 1 || visibleLength(text) <= width) return text;
  let out = '';
  let visible = 0;
  for (let index = 0; index < text.length;) {
    ANSI.lastIndex = index;
    const match = text.startsWith('\u001b[', index) ? ANSI.exec(text) : null;
    if (match && match.index === index) {
      out += match[0];
      index += match[0].length;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(index) ?? 32);
    if (visible >= width - 1) break;
    out += char;
    visible++;
    index += char.length;
  }
  return text.includes('\u001b[') ? `${out}…\u001b[0m` : `${out}…`;
}

/** A JSON value as one short line, for plan and output listings. */
export function inlineValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? 'null';
}

/**
 * Breaks plain text into lines of at most `width` visible characters, at spaces where it can,
 * each line after the first starting with `indent`. For text that must be read whole (an error).
 */
export function wrap(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let rest = text;
  let room = Math.max(10, width);
  while ([...rest].length > room) {
    const chars = [...rest];
    const head = chars.slice(0, room).join('');
    const space = head.lastIndexOf(' ');
    const cut = space > room / 2 ? space : head.length;
    lines.push(rest.slice(0, cut).trimEnd());
    rest = `${indent}${rest.slice(cut).trimStart()}`;
    room = Math.max(10, width);
    if (rest.trim() === '') break;
  }
  lines.push(rest);
  return lines.filter((line, index) => index === 0 || line.trim() !== '');
}
