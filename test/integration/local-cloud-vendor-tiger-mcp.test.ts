// The vendor's MCP server (`tiger mcp start stdio`, tiger-cli pinned in scripts/setup-tiger-cli.js)
// against the local cloud, spoken to over MCP's stdio transport by hand (JSON-RPC 2.0, one message a
// line): the handshake, tools/list, then the service tools (list, get, create, fork, stop, start,
// resize, update_password, logs, and a tool error), each answer compared with what the local cloud's typed
// client reads, rendered the way tiger-cli's MCP server renders a Service. Same binary, config
// directory and environment as local-cloud-vendor-tiger-cli.test.ts; without it or Go the suite is skipped with
// the reason (a failure under TIDELINE_REQUIRE_TOOLS=1).
import { call, paths } from '../helpers/local-cloud';
import { tigerCliMissing, useTigerSuite } from '../helpers/tiger-suite';
import { describeWithTools } from '../helpers/tool-requirements';
import {
  MCP_PROTOCOL_VERSION,
  startMcpStdio,
  type McpStdioClient,
  type McpToolResult,
} from '../helpers/mcp-stdio';
import type { Service } from '../../cloud/models';

let mcp: McpStdioClient | undefined;

/** The MCP server the handshake case started; later cases need it. */
function startedMcp(): McpStdioClient {
  if (mcp === undefined) throw new Error('the MCP server was not started (the handshake case failed)');
  return mcp;
}

/** The service tools tiger-cli v0.21.2 registers when neither read-only nor experimental. */
const SERVICE_TOOLS = [
  'service_create',
  'service_fork',
  'service_get',
  'service_list',
  'service_logs',
  'service_resize',
  'service_start',
  'service_stop',
  'service_update_password',
];

/** Go's `%.0f cores` / `%.1f cores` of cpu_millis/1000, or "shared" for null. */
function cores(cpuMillis: number | null | undefined): string {
  if (cpuMillis === null || cpuMillis === undefined) return 'shared';
  const value = cpuMillis / 1000;
  return Number.isInteger(value) ? `${value} cores` : `${value.toFixed(1)} cores`;
}

/** ServiceInfo of tiger-cli's MCP server (internal/tiger/mcp/utils.go) for an API Service. */
function mcpInfo(service: Service): Record<string, unknown> {
  const spec = service.resources?.[0]?.spec;
  return {
    id: service.service_id,
    name: service.name,
    status: service.status,
    type: service.service_type,
    region: service.region_code,
    // Go formats the time with a literal Z and whole seconds.
    created: service.created && new Date(service.created).toISOString().replace(/\.\d+Z$/, 'Z'),
    resources: spec && {
      cpu: cores(spec.cpu_millis),
      memory: spec.memory_gbs === null || spec.memory_gbs === undefined ? 'shared' : `${spec.memory_gbs} GB`,
    },
  };
}

/** ServiceDetail of tiger-cli's MCP server (password only when one is shown). */
function mcpDetail(service: Service, password?: string): Record<string, unknown> {
  const { host, port } = service.endpoint ?? {};
  const pooler = service.connection_pooler?.endpoint;
  const user = password === undefined ? 'tsdbadmin' : `tsdbadmin:${encodeURIComponent(password)}`;
  return {
    ...mcpInfo(service),
    replicas: service.ha_replicas?.replica_count ?? 0,
    direct_endpoint: host ? `${host}:${port ?? 5432}` : undefined,
    pooler_endpoint: pooler?.host ? `${pooler.host}:${pooler.port ?? 6432}` : undefined,
    password,
    connection_string: host && port ? `postgresql://${user}@${host}:${port}/tsdb?sslmode=require` : '',
  };
}

/** A successful tool answer: its structured content, which its text content repeats as JSON. */
function structured<T = Record<string, unknown>>(result: McpToolResult): T {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  const text = result.content[0]?.text;
  expect(text === undefined ? undefined : JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

function errorText(result: McpToolResult): string {
  expect(result.isError).toBe(true);
  return result.content.map((part) => part.text ?? '').join('\n');
}

interface Detail {
  service: Record<string, unknown> & { id: string };
  message?: string;
  password_storage?: unknown;
}

describeWithTools('tiger-cli MCP server against the local cloud', tigerCliMissing(), () => {
  // Registered before the suite's own teardown, so the server ends before the cloud it talks to.
  afterAll(async () => {
    await mcp?.close();
  });

  const suite = useTigerSuite({ label: 'tiger MCP server', seed: 13 });

  it('answers the handshake and lists the service tools', async () => {
    const t = suite.tiger;
    t.writeCredentials();
    mcp = startMcpStdio(t.binary, ['mcp', 'start', 'stdio'], { env: t.env });
    const init = await mcp.request<{
      protocolVersion: string;
      serverInfo: { name: string; version: string };
      capabilities: Record<string, unknown>;
    }>('initialize', {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'tideline-test', version: '0.0.0' },
    });
    expect(init).toMatchObject({
      protocolVersion: MCP_PROTOCOL_VERSION,
      serverInfo: { name: 'tiger', version: '0.21.2' },
      capabilities: { tools: expect.any(Object) },
    });
    mcp.notify('notifications/initialized');

    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await mcp.request<{ tools: { name: string }[]; nextCursor?: string }>(
        'tools/list',
        cursor === undefined ? {} : { cursor },
      );
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names.filter((name) => name.startsWith('service_')).sort()).toEqual(SERVICE_TOOLS);
    expect(names).toContain('db_execute_query');
  });

  it('runs the service tools; every answer is the API view', async () => {
    const mcp = startedMcp();
    const { client, project, settle, tc } = suite;

    expect(structured(await mcp.callTool('service_list'))).toEqual({ services: [] });

    // create: no addons, so a plain POSTGRES service of 500 m / 2 GB (behaviour.md).
    const created = structured<Detail>(
      await mcp.callTool('service_create', { name: 'mcp-made', with_password: true }),
    );
    const id = created.service.id;
    const queued = await client.service.get({ ...project, service_id: id });
    expect(queued).toMatchObject({ status: 'QUEUED', name: 'mcp-made', service_type: 'POSTGRES' });
    expect(created.message).toBe('Service creation request accepted. The service may still be provisioning.');
    expect(created.service.password).toEqual(expect.any(String));
    expect(created.service).toEqual(mcpDetail(queued, String(created.service.password)));

    settle();
    const ready = await client.service.get({ ...project, service_id: id });
    const got = structured<Detail>(await mcp.callTool('service_get', { service_id: id }));
    expect(got).toEqual({ service: mcpDetail(ready) });
    expect(ready.status).toBe('READY');
    const listed = structured(await mcp.callTool('service_list'));
    expect(listed).toEqual({ services: (await client.service.list(project)).map(mcpInfo) });

    // fork NOW with shared sizes: the API answers null sizes, shown as "shared".
    const forked = structured<Detail>(
      await mcp.callTool('service_fork', {
        service_id: id,
        fork_strategy: 'NOW',
        name: 'mcp-fork',
        cpu_memory: 'shared/shared',
      }),
    );
    const fork = await client.service.get({ ...project, service_id: forked.service.id });
    expect(fork).toMatchObject({
      name: 'mcp-fork',
      forked_from: { is_standby: false, project_id: tc.project.id, service_id: id },
    });
    expect(forked.service).toEqual(mcpDetail(fork));
    expect(forked.service.resources).toEqual({ cpu: 'shared', memory: 'shared' });

    // stop / start: each answers the status the API moved the service to.
    const stop = structured(await mcp.callTool('service_stop', { service_id: id }));
    expect(stop).toEqual({
      status: (await client.service.get({ ...project, service_id: id })).status,
      message: 'Service stop request accepted. The service may still be stopping.',
    });
    expect(stop.status).toBe('PAUSING');
    settle();
    const start = structured(await mcp.callTool('service_start', { service_id: id }));
    expect(start).toEqual({
      status: 'RESUMING',
      message: 'Service start request accepted. The service may still be starting.',
    });
    expect((await client.service.get({ ...project, service_id: id })).status).toBe('RESUMING');
    settle();

    // resize answers the service as the API returned it; the new sizes show once it is READY.
    const resize = structured(
      await mcp.callTool('service_resize', { service_id: id, cpu_memory: '1 CPU/4 GB' }),
    );
    const resizing = await client.service.get({ ...project, service_id: id });
    expect(resize).toEqual({
      status: resizing.status,
      resources: mcpInfo(resizing).resources,
      message: 'Resize request accepted. The service may still be resizing.',
    });
    expect(resize.status).toBe('CONFIGURING');
    settle();
    const resized = structured<Detail>(await mcp.callTool('service_get', { service_id: id }));
    expect(resized.service).toMatchObject({ status: 'READY', resources: { cpu: '1 cores', memory: '4 GB' } });
    expect(resized.service).toEqual(mcpDetail(await client.service.get({ ...project, service_id: id })));

    const password = structured(
      await mcp.callTool('service_update_password', { service_id: id, password: 'Fresh-Secret-42' }),
    );
    expect(password).toMatchObject({
      message: "Master password for 'tsdbadmin' user updated successfully",
    });

    // logs: the newest `tail` entries of the API's first page, oldest first, timestamp-prefixed.
    // The manual clock is in 2025, so the server's `until` (its wall clock) covers them all.
    const logs = structured<{ logs: string[] }>(
      await mcp.callTool('service_logs', { service_id: id, tail: 5 }),
    );
    const page = await client.service.logs({ ...project, service_id: id });
    const newest = (page.entries ?? []).slice(0, 5).reverse();
    expect(newest.length).toBeGreaterThan(0);
    expect(logs.logs).toEqual(
      newest.map(
        (entry) =>
          `${new Date(entry.timestamp)
            .toISOString()
            .replace('T', ' ')
            .replace(/\.\d+Z$/, ' UTC')} ${entry.message}`,
      ),
    );

    // A failing API call is a tool error carrying the API's message.
    const missing = await mcp.callTool('service_get', { service_id: 'zzzzzzzzzz' });
    const refusal = await call<{ message: string }>(tc, 'GET', paths(tc).service('zzzzzzzzzz'));
    expect(refusal.status).toBe(404);
    expect(errorText(missing)).toBe(refusal.body.message);
    expect(mcp.stray).toEqual([]);
  });
});
