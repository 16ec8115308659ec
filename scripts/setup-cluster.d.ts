// Types for scripts/setup-cluster.js (plain JS because it runs before TypeScript is built).

export declare const SERVER_MODULE: string;
export declare const SERVER_VERSION: string;
/** The least Go minor version that builds the server and the Web UI server (1.N). */
export declare const MIN_GO_MINOR: number;

export interface ClusterToolPaths {
  toolsDir: string;
  server: string;
  sqlTool: string;
  schemaDir: string;
  stampFile: string;
  lockDir: string;
  scratchBin: string;
}

export interface BuiltClusterTools {
  server: string;
  sqlTool: string;
  /** …/postgresql/v12, holding temporal/versioned and visibility/versioned. */
  schemaDir: string;
  version: string;
}

export declare function clusterToolPaths(root?: string): ClusterToolPaths;

export declare function cachedClusterTools(root?: string): BuiltClusterTools | undefined;

export declare function ensureClusterTools(options?: {
  env?: NodeJS.ProcessEnv;
  root?: string;
  log?: (line: string) => void;
}): Promise<(BuiltClusterTools & { source: 'cached' | 'built' }) | { unavailable: string }>;

export declare function serverModuleDir(options?: { env?: NodeJS.ProcessEnv }): string | undefined;

export declare const UI_VERSION: string;

export interface BuiltClusterUi {
  /** The Temporal Web UI server (ui-server, assets embedded). */
  uiServer: string;
  version: string;
}

export declare function cachedClusterUi(root?: string): BuiltClusterUi | undefined;

export declare function ensureClusterUi(options?: {
  env?: NodeJS.ProcessEnv;
  root?: string;
  log?: (line: string) => void;
}): Promise<(BuiltClusterUi & { source: 'cached' | 'built' }) | { unavailable: string }>;

/** A directory holding initdb: TIDELINE_POSTGRES_BIN, or the newest /usr/lib/postgresql/N/bin. */
export declare function findPostgresBin(env?: NodeJS.ProcessEnv): string | undefined;

/** PostgreSQL's binaries, installed with apt-get when missing and running as root. */
export declare function ensurePostgres(options?: {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): { bin: string } | { unavailable: string };
