export const TIMINGS_FILE: string;
export function listKey(rootDir: string, file: string): string;
export function readTimings(rootDir: string): Record<string, number>;
export interface TimedFile {
  key: string;
  failed: boolean;
  seconds: number | undefined;
  size: number;
}
export function orderSlowestFirst<T extends TimedFile>(files: readonly T[]): T[];
export function refreshedTimings(
  rootDir: string,
  current: Record<string, number>,
  results: unknown,
): Record<string, number>;
