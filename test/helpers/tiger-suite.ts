// The shared setup of the tests that run the vendor's tiger-cli (CLI commands or its MCP server)
// against the local cloud: builds the pinned binary once (scripts/setup-tiger-cli.js), starts a
// local cloud on a manual clock, in the dialect the pinned version speaks, and a typed client of its first project, and registers the
// matching teardown. Call it inside `describeWithTools(name, tigerCliMissing(), …)`: without the
// binary or a Go to build it the suite is skipped with the reason (fails when tools are required).
import { MIN_GO_MINOR, cachedTigerCli, ensureTigerCli } from '../../scripts/setup-tiger-cli';
import { cloudApiClient, startTestCloud, type TestCloud } from './local-cloud';
import { tigerCli, type TigerCli } from './tiger-cli';
import { goToolMissing } from './tool-requirements';
import type { CloudClient } from '../../cloud/client';

export interface TigerSuite {
  readonly tc: TestCloud;
  readonly client: CloudClient;
  /** The path parameter every project-scoped call of the typed client takes. */
  readonly project: { project_id: string };
  readonly tiger: TigerCli;
  /** Moves the manual clock far enough for any one transition (and a first snapshot) to end. */
  settle(): void;
}

/**
 * The dialect tiger-cli v0.21.2 speaks: it reads `apiKey`, `lastCursor` and `vpcEndpoint`, the
 * seed's names (the current dialect sends only `api_key`, `last_cursor` and `vpc_endpoint`, which
 * the current-dialect suites cover).
 */
export const TIGER_CLI_DIALECT = 'seed';

/** Why tiger-cli can be neither run nor built here, or undefined when it can. */
export function tigerCliMissing(): string | undefined {
  return goToolMissing('tiger-cli (.tools/bin/tiger)', cachedTigerCli() !== undefined, MIN_GO_MINOR);
}

/** Registers beforeAll/afterAll; read the fields inside tests (they are set by beforeAll). */
export function useTigerSuite(options: { label: string; seed: number }): TigerSuite {
  let tc: TestCloud | undefined;
  let client: CloudClient | undefined;
  let tiger: TigerCli | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTigerSuite: read before beforeAll ran');
    return value;
  };

  beforeAll(async () => {
    const built = await ensureTigerCli({ log: () => {} });
    if ('unavailable' in built) throw new Error(`${options.label}: ${built.unavailable}`);
    tc = await startTestCloud({ manualClock: true, seed: options.seed, dialect: TIGER_CLI_DIALECT });
    client = cloudApiClient(tc);
    tiger = tigerCli(built.path, tc);
  }, 600_000);

  afterAll(async () => {
    tiger?.close();
    await client?.close();
    await tc?.close();
  });

  return {
    get tc() {
      return ready(tc);
    },
    get client() {
      return ready(client);
    },
    get project() {
      return { project_id: ready(tc).project.id };
    },
    get tiger() {
      return ready(tiger);
    },
    settle() {
      const cloud = ready(tc);
      cloud.advance(Math.max(...Object.values(cloud.cloud.durations)) * 3);
    },
  };
}
