// `tideline mcp` over stdio (mcp/server.ts, serveStdio) on in-memory streams: newline-delimited
// JSON-RPC in and out, nothing else on the output, and a client that closes its end while a call
// is still running gets that call's answer before the server ends; a rehearsal still running then
// is cancelled (the client is gone) and answers so.
import { PassThrough } from 'node:stream';
import { McpToolError } from '../../mcp/errors';
import { serveStdio, type McpServerSettings } from '../../mcp/server';
import { standInSettings } from '../helpers/mcp-settings';

/** A stdio server on in-memory streams, initialised, with one tool call sent. */
function sessionCalling(serverSettings: McpServerSettings, tool: string) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const served = serveStdio(serverSettings, { input, output });
  const send = (message: object) => input.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Unit', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: tool, arguments: { runbook: 'start-dev-services', inputs: { project_id: 'p1' } } },
  });
  return { input, served, written: () => written };
}

test('answers a call still running when the client closes its end, then ends', async () => {
  let finishPlan: (text: string) => void = () => undefined;
  const planStarted = new Promise<void>((started) => {
    settings.renderPlan = () => {
      started();
      return new Promise<string>((resolve) => (finishPlan = resolve));
    };
  });
  const { input, served, written } = sessionCalling(settings, 'plan');
  await planStarted;
  input.end();
  finishPlan('Plan for start-dev-services');
  await served;
  const lines = written().trim().split('\n');
  const messages = lines.map(
    (line) => JSON.parse(line) as { id?: number; result?: { content?: { text: string }[] } },
  );
  expect(messages.map((message) => message.id)).toEqual([1, 2]);
  expect(messages[1]?.result?.content?.[0]?.text).toMatch(
    /^plan hash: sha256:[0-9a-f]{64}\n\nPlan for start-dev-services$/,
  );
});

test('cancels a rehearsal still running when the client closes its end, then ends', async () => {
  let started: () => void = () => undefined;
  const rehearsing = new Promise<void>((resolve) => (started = resolve));
  const rehearsingSettings = standInSettings('read-only', {
    renderPlan: async () => '',
    rehearse: ({ signal }) => {
      started();
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () =>
          reject(
            new McpToolError('MCP_REHEARSAL_CANCELLED', `cancelled: ${(signal.reason as Error).message}`),
          ),
        ),
      );
    },
  });
  const { input, served, written } = sessionCalling(rehearsingSettings, 'rehearse');
  await rehearsing;
  input.end();
  await served;
  const answer = JSON.parse(written().trim().split('\n')[1] ?? '{}') as { id?: number; result?: unknown };
  expect(answer).toMatchObject({
    id: 2,
    result: {
      isError: true,
      structuredContent: { code: 'MCP_REHEARSAL_CANCELLED' },
      content: [{ text: expect.stringContaining('cancelled: the client closed its input') }],
    },
  });
});

const settings: McpServerSettings = standInSettings('read-only', { renderPlan: async () => '' });
