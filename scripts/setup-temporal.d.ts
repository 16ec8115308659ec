// Types for scripts/setup-temporal.js (plain JS because it runs before TypeScript is built).

export declare const TEMPORAL_CLI_MODULE: string;
export declare const TEMPORAL_CLI_VERSION: string;

export type SetupErrorCode =
  | 'TIDELINE_TEMPORAL_BIN_INVALID'
  | 'TIDELINE_TEMPORAL_UNAVAILABLE'
  | 'TIDELINE_TEMPORAL_BUILD_FAILED'
  | 'TIDELINE_TEMPORAL_MISSING';

export declare class SetupError extends Error {
  readonly code: SetupErrorCode;
  constructor(code: SetupErrorCode, message: string);
}

export interface ToolsPaths {
  toolsDir: string;
  binDir: string;
  binary: string;
  pathFile: string;
  stampFile: string;
  lockDir: string;
}

export interface GoToolchain {
  path: string;
  version: string;
}

export interface ResolveOptions {
  env?: NodeJS.ProcessEnv;
  /** Repository root; defaults to the checkout holding the script. */
  root?: string;
  /** Checks that a binary runs; returns its version line or undefined. */
  probe?: (file: string) => string | undefined;
}

export interface ResolvedTemporal {
  path: string;
  source: 'env' | 'path' | 'tools' | 'built';
}

/** The Temporal CLI's files under the tools folder of `root` (scripts/tools-dir.js decides where). */
export declare function toolsPaths(root?: string, env?: NodeJS.ProcessEnv): ToolsPaths;
export declare function findOnPath(name: string, pathValue: string | undefined): string | undefined;
/** The first working `go` (PATH, then /usr/local/go/bin/go), with its `go env GOVERSION`. */
export declare function findGo(env: NodeJS.ProcessEnv, fallbackPaths?: string[]): GoToolchain | undefined;
/** Whether a `go1.N…` version is at least 1.`minMinor` (unknown formats are given a try). */
export declare function goVersionIsSufficient(version: string, minMinor?: number): boolean;
export declare function resolveTemporalBinary(options?: ResolveOptions): ResolvedTemporal | undefined;
export declare function buildTemporal(options: {
  gobin: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  go?: GoToolchain;
  /** Where to look for `go` when it is not on PATH (default: /usr/local/go/bin/go). */
  goFallbackPaths?: string[];
}): Promise<string>;
export declare function ensureTemporalBinary(options?: {
  env?: NodeJS.ProcessEnv;
  root?: string;
  log?: (line: string) => void;
  go?: GoToolchain;
  goFallbackPaths?: string[];
}): Promise<ResolvedTemporal>;
export declare function readTemporalPath(options?: { env?: NodeJS.ProcessEnv; root?: string }): string;
