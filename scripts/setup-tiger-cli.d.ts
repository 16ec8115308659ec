// Types for scripts/setup-tiger-cli.js (plain JS because it runs before TypeScript is built).

export declare const TIGER_CLI_MODULE: string;
export declare const TIGER_CLI_VERSION: string;
/** The least Go minor version that builds it (1.N). */
export declare const MIN_GO_MINOR: number;

export interface TigerPaths {
  toolsDir: string;
  binary: string;
  stampFile: string;
  lockDir: string;
  scratchDir: string;
}

export declare function tigerPaths(root?: string): TigerPaths;

/** The cached binary when it was built from the pinned version and is unchanged since. */
export declare function cachedTigerCli(root?: string): string | undefined;

/** The pinned tiger-cli binary, built (through the Go module proxy) when missing. */
export declare function ensureTigerCli(options?: {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  root?: string;
}): Promise<{ path: string; source: 'cached' | 'built' } | { unavailable: string }>;
