// Types for scripts/setup-vendor-openapi.js (plain JS because it runs before TypeScript is built).

export interface VendorOpenApiPaths {
  dir: string;
  /** The copy of the pinned tiger-cli module's `openapi.yaml`. */
  document: string;
  stampFile: string;
}

export declare function vendorOpenApiPaths(root?: string): VendorOpenApiPaths;

/** The copied document when it came from the pinned version and is unchanged since. */
export declare function cachedVendorOpenApi(root?: string): string | undefined;

/** GOPROXY with `direct` and `off` removed; undefined when no proxy remains. */
export declare function proxyOnly(goproxy: string): string | undefined;

/** The pinned vendor document, fetched through the Go module proxy and copied when missing. */
export declare function ensureVendorOpenApi(options?: {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  root?: string;
}): { path: string; source: 'cached' | 'fetched' } | { unavailable: string };
