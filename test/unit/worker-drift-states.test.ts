// The worker's watched states (`drift:`): read and checked at start, every problem reported at
// once; a check keeps only drift (error and warning findings) and lists through the worker's
// clients. The watcher's notion of change: a finding is (rule, service id).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CloudCaller, CloudClientResolver } from '../../activities/deps';
import { driftSlackMessage } from '../../activities/drift-watch';
import type { WatchedFinding } from '../../contract/drift-watch-messages';
import { findingChanges } from '../../workflows/drift-watch-workflow';
import { describeWorkerConfig, loadWorkerConfig } from '../../worker/config';
import { driftWatchSettings, loadDriftStates } from '../../worker/drift-states';

const state = (name: string, severity = 'error') => `apiVersion: tideline/v1
kind: State
name: ${name}
rules:
  - name: has-ha
    select: { environment: PROD }
    expect: has(service.ha_replicas) && service.ha_replicas.replica_count >= 1
    severity: ${severity}
  - name: named
    expect: service.name != ''
    severity: info
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tideline-drift-states-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('loads the *.state.yaml files of a folder by name and checks the drift targets', () => {
  writeFileSync(path.join(dir, 'a.state.yaml'), state('fleet-a'));
  writeFileSync(path.join(dir, 'b.state.yaml'), state('fleet-b'));
  writeFileSync(path.join(dir, 'notes.yaml'), 'not: a state');
  const problems: string[] = [];
  const loaded = loadDriftStates({ states: ['.'], notify: ['ops'] }, new Set(['ops']), dir, problems);
  expect(problems).toEqual([]);
  expect([...(loaded?.states.keys() ?? [])]).toEqual(['fleet-a', 'fleet-b']);
  expect(loaded?.notify).toEqual(['ops']);
});

test('reports an invalid file, a doubled name, a missing path and an unknown target together', () => {
  writeFileSync(path.join(dir, 'a.state.yaml'), state('fleet'));
  writeFileSync(path.join(dir, 'b.state.yaml'), state('fleet'));
  writeFileSync(path.join(dir, 'c.state.yaml'), 'apiVersion: tideline/v1\nkind: State\nname: x\nrules: []\n');
  const problems: string[] = [];
  loadDriftStates({ states: ['.', 'missing'], notify: ['nobody'] }, new Set(['ops']), dir, problems);
  expect(problems).toEqual([
    expect.stringMatching(/^drift: b\.state\.yaml and a\.state\.yaml are both named fleet/),
    expect.stringMatching(/^drift: c\.state\.yaml is not a valid state file/),
    expect.stringMatching(/^drift\.states\[1\]: missing cannot be read \(ENOENT\)/),
    'drift.notify: nobody is not one of notifications.targets; define it there first',
  ]);
});

test('a check lists once through the project client and keeps only error and warning findings', async () => {
  writeFileSync(path.join(dir, 'a.state.yaml'), state('fleet'));
  const problems: string[] = [];
  const loaded = loadDriftStates({ states: ['a.state.yaml'] }, new Set(), dir, problems)!;
  const calls: [string | undefined, string][] = [];
  const clients: CloudClientResolver = {
    forProject: (projectId) =>
      ({
        call: (action: string) => {
          calls.push([projectId, action]);
          return Promise.resolve([
            {
              service_id: 's1',
              name: 'orders',
              metadata: { environment: 'PROD' },
              ha_replicas: { replica_count: 0 },
            },
            {
              service_id: 's2',
              name: 'billing',
              metadata: { environment: 'PROD' },
              ha_replicas: { replica_count: 1 },
            },
          ]);
        },
      }) as unknown as CloudCaller,
  };
  const settings = driftWatchSettings(loaded, clients, 'proj1');
  expect(settings.check('other')).toBeUndefined();
  const result = await settings.check('fleet');
  expect(calls).toEqual([['proj1', 'service.list']]);
  expect(result?.projectId).toBe('proj1');
  expect(result?.findings.map((f) => [f.rule, f.service.id])).toEqual([['has-ha', 's1']]);
});

const finding = (rule: string, id: string): WatchedFinding => ({
  rule,
  severity: 'error',
  service: { id, name: `svc-${id}` },
  expected: 'true',
  found: {},
});

test('a change is what appeared and what cleared, by rule and service id', () => {
  const before = [finding('a', '1'), finding('b', '1')];
  const now = [{ ...finding('a', '1'), found: { x: 1 } }, finding('a', '2')];
  expect(findingChanges(before, now)).toEqual({
    appeared: [finding('a', '2')],
    cleared: [finding('b', '1')],
  });
  expect(findingChanges(now, now)).toEqual({ appeared: [], cleared: [] });
});

test('Slack hears what appeared, with the services and rules', () => {
  const message = driftSlackMessage({
    id: 'w/1/drift-appeared',
    event: 'drift-appeared',
    state: 'fleet',
    projectId: 'p',
    findings: [finding('has-ha', 's1')],
    open: 1,
    workflowId: 'w',
    at: '2026-01-01T00:00:00.000Z',
  });
  expect(message.text.split('\n')).toEqual([
    ':warning: drift in `fleet` (project `p`): 1 new',
    '• `svc-s1` (s1) has-ha: `true`',
    '1 finding(s) open',
  ]);
});

describe('the worker configuration', () => {
  const config = (drift: string) => `cloud:
  baseUrl: https://api.example.com/public/api/v1
  projects: { p1: { accessKey: AK, secretKey: SK } }
notifications:
  targets: { ops: { type: webhook, url: 'https://hooks.example.com/x' } }
${drift}
`;
  const load = (text: string) => {
    const file = path.join(dir, 'worker.yaml');
    writeFileSync(file, text, { mode: 0o600 });
    return loadWorkerConfig({ env: { TIDELINE_CONFIG: file }, notice: () => undefined });
  };

  test('reads the watched states at start, relative to the file', () => {
    writeFileSync(path.join(dir, 'a.state.yaml'), state('fleet'));
    const loaded = load(config('drift: { states: [a.state.yaml], notify: [ops] }'));
    expect([...(loaded.drift?.states.keys() ?? [])]).toEqual(['fleet']);
    expect(describeWorkerConfig(loaded).drift).toEqual({ states: ['fleet'], notify: ['ops'] });
  });

  test('refuses to start on a state it cannot read or a target it lacks', () => {
    expect(() => load(config('drift: { states: [missing.state.yaml], notify: [pager] }'))).toThrow(
      /drift\.states\[0\]: missing\.state\.yaml cannot be read[\s\S]*drift\.notify: pager is not one of notifications\.targets/,
    );
  });
});
