// An agent's public key registers under `approvals.keys` by its name (`mcp:<client>`), as
// docs/mcp.md says, so the worker can verify the starts `tideline mcp` signs; an agent is still
// no approver: a group that lists it, or a repair identity that names it, is refused by name.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicKeyText } from '../../activities/approval-keys';
import { loadWorkerConfig, type WorkerConfig } from '../../worker/config';
import { thrownBy } from '../helpers/thrown';

const CREDENTIALS = {
  TIDELINE_CLOUD_URL: 'https://api.example.com/public/api/v1/',
  TIDELINE_CLOUD_PROJECT_ID: 'proj000001',
  TIDELINE_CLOUD_ACCESS_KEY: 'AK1',
  TIDELINE_CLOUD_SECRET_KEY: 'sk-secret',
};
const agentKey = publicKeyText(generateKeyPairSync('ed25519').publicKey);
const aliceKey = publicKeyText(generateKeyPairSync('ed25519').publicKey);

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'tideline-agent-key-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads a worker configuration file written as a user writes it. */
function load(name: string, yaml: string): WorkerConfig {
  const file = join(dir, name);
  writeFileSync(file, yaml, { mode: 0o600 });
  return loadWorkerConfig({ env: { TIDELINE_CONFIG: file, ...CREDENTIALS }, notice: () => undefined });
}

test("an agent's key under approvals.keys loads, next to a person's", () => {
  const config = load(
    'agent.yaml',
    `approvals:\n  keys:\n    mcp:agent: '${agentKey}'\n    alice: '${aliceKey}'\n  groups: { dba: [alice] }\n`,
  );
  expect(config.approvals.keys.get('mcp:agent')).toEqual([agentKey]);
  expect(config.approvals.keys.get('alice')).toEqual([aliceKey]);
});

test('an agent in a group is refused by name: agents never approve', () => {
  const error = thrownBy(() =>
    load(
      'agent-group.yaml',
      `approvals:\n  keys:\n    mcp:agent: '${agentKey}'\n  groups: { dba: [mcp:agent] }\n`,
    ),
  );
  expect(error.message).toContain('approvals.groups.dba.0:');
  expect(error.message).toContain(
    'is an agent (mcp:…), a name only approvals.keys takes: agents never approve',
  );
});

test('a key name that is neither a person nor an agent is refused, saying which forms are', () => {
  const error = thrownBy(() => load('bad.yaml', `approvals:\n  keys:\n    'mcp:': '${agentKey}'\n`));
  expect(error.message).toContain('approvals.keys');
  expect(error.message).toContain('must be a person');
  expect(error.message).toContain('or an agent (mcp: and letters');
});
