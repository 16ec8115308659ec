// Types for scripts/tools-dir.js (plain JS because setup scripts run before TypeScript is built).

/** The per-user cache folder: $XDG_CACHE_HOME/tideline, else ~/.cache/tideline. */
export declare function userCacheDir(env?: NodeJS.ProcessEnv): string;
/** Whether `root` is a checkout the current user may write to (an installed package never is). */
export declare function isWritableCheckout(root: string): boolean;
/** $TIDELINE_TOOLS_DIR, else <root>/.tools in a writable checkout, else the per-user cache. */
export declare function toolsDir(root: string, env?: NodeJS.ProcessEnv): string;
