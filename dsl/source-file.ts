// Bounded, safe reading of the text files a user names (runbooks, inputs files, `-i name=@file`):
// regular files only (a directory, device or FIFO is refused before it is opened for reading),
// never more than a limit (a 5 GB file or /dev/zero costs at most the limit plus one byte), and
// UTF-8 checked, with the first invalid byte given as line:column. Uses `fs`: CLI and worker only.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { SourcePosition } from './problems';

/** The largest runbook (or inputs file) read: far above any real one, far below harm. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

export type SourceRead =
  | {
      kind: 'text';
      /** The text; invalid UTF-8 sequences are replaced by U+FFFD (see `invalidUtf8`). */
      text: string;
      /** Where the first invalid UTF-8 sequence is, if any. */
      invalidUtf8?: SourcePosition;
    }
  | { kind: 'missing' }
  | { kind: 'unreadable'; reason: string };

/** `1 MiB`, `512 KiB`, `100 bytes`: the limit as said in messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** `a runbook file`, `an inputs file`. */
function withArticle(what: string): string {
  return `${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what}`;
}

function kindOf(stats: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

/** The length of the valid UTF-8 sequence starting at `at`, or 0 when it is invalid. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const first = bytes[at] ?? 0;
  if (first < 0x80) return 1;
  let length: number;
  let min: number;
  if (first >= 0xc2 && first <= 0xdf) [length, min] = [2, 0x80];
  else if (first >= 0xe0 && first <= 0xef) [length, min] = [3, 0x800];
  else if (first >= 0xf0 && first <= 0xf4) [length, min] = [4, 0x10000];
  else return 0;
  if (at + length > bytes.length) return 0;
  let code = first & (0xff >> (length + 1));
  for (let index = 1; index < length; index++) {
    const next = bytes[at + index] ?? 0;
    if ((next & 0xc0) !== 0x80) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

/** The byte offset of the first invalid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let at = 0; at < bytes.length;) {
    const length = sequenceLength(bytes, at);
    if (length === 0) return at;
    at += length;
  }
  return -1;
}

/** Line and column (1-based, in characters) of a byte offset in valid UTF-8 text before it. */
function positionOf(bytes: Uint8Array, offset: number): SourcePosition {
  const before = Buffer.from(bytes.buffer, bytes.byteOffset, offset).toString('utf8');
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let index = before.indexOf('\n'); index !== -1; index = before.indexOf('\n', index + 1)) line++;
  return { line, column: before.length - lineStart + 1 };
}

/** Decodes UTF-8, noting where the first invalid sequence is (the text gets U+FFFD there). */
export function decodeUtf8(bytes: Uint8Array): { text: string; invalidUtf8?: SourcePosition } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  const bad = firstInvalidUtf8(bytes);
  return bad === -1 ? { text } : { text, invalidUtf8: positionOf(bytes, bad) };
}

/** Reads at most `maxBytes + 1` bytes from an open file descriptor (a stream never ends otherwise). */
function readBounded(fd: number, maxBytes: number): Buffer | undefined {
  const buffer = Buffer.alloc(Math.min(maxBytes + 1, 64 * 1024));
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
    total += read;
    if (total > maxBytes) return undefined;
  }
  return Buffer.concat(chunks, total);
}

/**
 * Reads a text file, bounded. `what` names it in messages ("runbook file", "inputs file").
 * Never throws for anything about the file itself.
 */
export function readSourceFile(path: string, what: string, maxBytes = MAX_SOURCE_BYTES): SourceRead {
  let fd: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile())
      return { kind: 'unreadable', reason: `is ${kindOf(stats)}, not ${withArticle(what)}` };
    // O_NONBLOCK: should the file be swapped for a FIFO after the check, opening does not hang.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', reason: `cannot be read (${code ?? 'read error'})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      return { kind: 'unreadable', reason: `is ${kindOf(stats)}, not ${withArticle(what)}` };
    if (stats.size > maxBytes) return tooLarge(what, maxBytes);
    const bytes = readBounded(fd, maxBytes);
    if (bytes === undefined) return tooLarge(what, maxBytes);
    return { kind: 'text', ...decodeUtf8(bytes) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { kind: 'unreadable', reason: `cannot be read (${code ?? 'read error'})` };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(what: string, maxBytes: number): SourceRead {
  return {
    kind: 'unreadable',
    reason: `is larger than ${formatBytes(maxBytes)}, the limit for ${withArticle(what)}`,
  };
}

/** Reads a stream (stdin) to its end, bounded; undefined when it is longer than `maxBytes`. */
export async function readStreamBounded(
  stream: NodeJS.ReadableStream,
  maxBytes = MAX_SOURCE_BYTES,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > maxBytes) {
      if ('destroy' in stream && typeof stream.destroy === 'function') (stream.destroy as () => void)();
      return undefined;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, total);
}
