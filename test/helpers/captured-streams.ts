import { PassThrough } from 'node:stream';

/** A CLI's stdout and stderr as streams, with everything written to each so far as text. */
export interface CapturedStreams {
  stdout: PassThrough;
  stderr: PassThrough;
  out: () => string;
  err: () => string;
}

export function capturedStreams(): CapturedStreams {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { stdout, stderr, out: () => out, err: () => err };
}
