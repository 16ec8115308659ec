// The read-only gate as a daemon (cluster/read-only-gate.ts), started by `tideline cluster up` for
// an mTLS cluster's Web UI: `node read-only-gate-main.js --gate FILE`, FILE the gate's JSON config.
// Runs until SIGTERM; one line per refused call goes to its log.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { startReadOnlyGate } from './read-only-gate';

const port = z.number().int().min(1).max(65535);
const GateConfigSchema = z.strictObject({
  listenPort: port,
  frontendPort: port,
  serverName: z.string().min(1),
  caFile: z.string().min(1),
  certFile: z.string().min(1),
  keyFile: z.string().min(1),
});

async function main(): Promise<void> {
  const index = process.argv.indexOf('--gate');
  const file = index >= 0 ? process.argv[index + 1] : undefined;
  if (file === undefined) throw new Error('usage: read-only-gate-main.js --gate CONFIG.json');
  const config = GateConfigSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const log = (line: string): void => {
    process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  };
  const gate = await startReadOnlyGate(config, log);
  log(
    `read-only gate: listening on 127.0.0.1:${config.listenPort}, forwarding reads to 127.0.0.1:${config.frontendPort}`,
  );
  const stop = (): void => {
    void gate.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`read-only gate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
