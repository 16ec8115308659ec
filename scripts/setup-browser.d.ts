// Types for scripts/setup-browser.js (plain JS because it runs before TypeScript is built).

export declare const DEBIAN_CHROMIUM: string;

/** The Chromium executable to drive ($TIDELINE_CHROMIUM, /usr/bin/chromium, PATH), if any. */
export declare function findChromium(env?: NodeJS.ProcessEnv): string | undefined;

/** Why `apt-get install chromium` is impossible here, or undefined when it can run. */
export declare function installImpossible(env?: NodeJS.ProcessEnv): string | undefined;

export declare function ensureChromium(options?: {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}): { path: string } | { unavailable: string };
