// Types for scripts/setup-releases.js (plain JS because it runs before TypeScript is built).

export type ReleaseSetupErrorCode =
  | 'TIDELINE_RELEASE_MANIFEST_INVALID'
  | 'TIDELINE_RELEASE_COMMIT_MISSING'
  | 'TIDELINE_RELEASE_DEPENDENCIES_DIFFER'
  | 'TIDELINE_RELEASE_BUILD_FAILED';

export declare class ReleaseSetupError extends Error {
  readonly code: ReleaseSetupErrorCode;
  constructor(code: ReleaseSetupErrorCode, message: string);
}

/** One entry of releases/releases.json. */
export interface ReleaseManifestEntry {
  /** YYYY-MM */
  name: string;
  /** The full commit hash it was built from. */
  commit: string;
  /** The definition format version it writes. */
  formatVersion: number;
}

export interface ReleasePaths {
  /** .tools/releases/<name>: the release's sources, its dist/ and a node_modules link. */
  dir: string;
  /** dist/worker/main.js of the release. */
  workerEntry: string;
  /** dist/workflow-bundle.js of the release. */
  workflowBundle: string;
  stampFile: string;
  toolsDir: string;
  lockDir: string;
}

export type BuiltRelease = ReleaseManifestEntry & ReleasePaths & { builtAt: string };

export declare function readManifest(root?: string): ReleaseManifestEntry[];
export declare function releasePaths(name: string, root?: string): ReleasePaths;
export declare function cachedRelease(release: ReleaseManifestEntry, root?: string): BuiltRelease | undefined;
export declare function dependencyDifferences(releaseLock: string, currentLock: string): string[];
export declare function ensureReleases(options?: {
  root?: string;
  log?: (line: string) => void;
  /** Only these releases (default: all). */
  names?: string[];
}): Promise<BuiltRelease[]>;
