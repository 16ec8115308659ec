// Headless Chromium for tests that look at what a person sees (Temporal's Web UI): Debian's
// `chromium` package (scripts/setup-browser.js installs it during setup) driven by playwright-core,
// which never downloads a browser of its own. Without Chromium the suite skips and says why (fails
// under TIDELINE_REQUIRE_TOOLS=1, test/helpers/tool-requirements.ts).
//
//   const browser = useBrowser();   // registers beforeAll/afterAll
//   describeWithTools('…', browser.missing, () => { … });
//   … const page = await browser.newPage(); await saveScreenshot(page, 'run-page');
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findChromium } from '../../scripts/setup-browser';
import { REPO_ROOT } from './worker-process';

/** Screenshots land here (git-ignored), for CI to keep and for a person to look at. */
export const ARTIFACT_DIR = path.join(REPO_ROOT, 'test-artifacts', 'browser');

export interface TestBrowser {
  /** Why there is no browser (no Chromium installed), or undefined when there is one. */
  readonly missing: string | undefined;
  /** A fresh page (its own context: no cookies or storage shared between tests). */
  newPage(): Promise<Page>;
}

export function useBrowser(): TestBrowser {
  const executablePath = findChromium();
  let browser: Browser | undefined;
  const pages: Page[] = [];

  beforeAll(async () => {
    if (executablePath === undefined) return;
    // Playwright passes --no-sandbox by default (chromiumSandbox: false), which running as root needs.
    browser = await chromium.launch({ executablePath, headless: true, timeout: 120_000 });
  }, 180_000);

  afterAll(async () => {
    for (const page of pages.splice(0))
      await page
        .context()
        .close()
        .catch(() => undefined);
    await browser?.close();
  });

  return {
    missing:
      executablePath === undefined
        ? 'no Chromium (run `npm run setup` as root on Debian, or install the chromium package, or set TIDELINE_CHROMIUM)'
        : undefined,
    async newPage() {
      if (browser === undefined) throw new Error('useBrowser: no browser (read before beforeAll ran?)');
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      pages.push(page);
      return page;
    },
  };
}

/** Saves a full-page PNG as `<ARTIFACT_DIR>/<name>.png` and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACT_DIR, { recursive: true });
  const file = path.join(ARTIFACT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, timeout: 60_000 });
  return file;
}
