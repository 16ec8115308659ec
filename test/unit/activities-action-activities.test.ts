import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { CloudApiError, type CloudApiErrorCode } from '../../cloud/errors';
import { Service } from '../../cloud/models';
import { ACTION_NAMES } from '../../cloud/operations';
import type { CloudCaller } from '../../activities/deps';
import { createActivities } from '../../activities';
import { toActivityFailure } from '../../activities/failures';
import { callAttemptOf } from '../../contract/call-attempts';
import { rejectionOf } from '../helpers/rejection';

interface Recorded {
  action: string;
  input: Record<string, unknown>;
}

/** A fake caller answering per action; records every call. */
function fakeCloud(answers: Record<string, unknown>): CloudCaller & { seen: Recorded[] } {
  const seen: Recorded[] = [];
  const caller = {
    seen,
    async call(action: string, input: Record<string, unknown>) {
      seen.push({ action, input });
      const answer = answers[action];
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return caller as unknown as CloudCaller & { seen: Recorded[] };
}

const activitiesFor = (caller: CloudCaller) => createActivities({ clients: { forProject: () => caller } });

const failureOf = (pending: Promise<unknown>) => rejectionOf(pending, ApplicationFailure);

const createInput = { input: { project_id: 'p1', name: 'orders', cpu_millis: '1000', memory_gbs: '4' } };

describe('action activities', () => {
  test('there is one activity per action of the catalogue, plus the wait, the locks, the approval and hold checks, the admission, the policy check, the notifications and the drift watch', () => {
    const activities = activitiesFor(fakeCloud({}));
    expect(Object.keys(activities).sort()).toEqual(
      [
        ...ACTION_NAMES,
        'lock.request',
        'lock.take',
        'lock.watchHolder',
        'wait.until',
        'approval.verify',
        'hold.verify',
        'run.admit',
        'policy.check',
        'notify.plan',
        'notify.deliver',
        'drift.check',
        'drift.deliver',
        'drift.repair',
        'drift.repairOutcomes',
      ].sort(),
    );
  });

  test('a change answered only with a message gives the resource read back as its output', async () => {
    const renamed = { id: '7', name: 'edge', cidr: '10.0.0.0/16', region_code: 'us-east-1' };
    const cloud = fakeCloud({ 'vpc.rename': { message: 'VPC renamed' }, 'vpc.get': renamed });
    const result = await new MockActivityEnvironment().run(activitiesFor(cloud)['vpc.rename'], {
      input: { project_id: 'p1', vpc_id: '7', name: 'edge' },
    });
    expect(result).toEqual(renamed);
    expect(cloud.seen).toEqual([
      { action: 'vpc.rename', input: { project_id: 'p1', vpc_id: '7', name: 'edge' } },
      { action: 'vpc.get', input: { project_id: 'p1', vpc_id: '7' } },
    ]);
  });

  test('a change answered with the resource is not read back', async () => {
    const renamed = { id: '7', name: 'edge' };
    const cloud = fakeCloud({ 'vpc.rename': renamed });
    const result = await new MockActivityEnvironment().run(activitiesFor(cloud)['vpc.rename'], {
      input: { project_id: 'p1', vpc_id: '7', name: 'edge' },
    });
    expect(result).toEqual(renamed);
    expect(cloud.seen.map((c) => c.action)).toEqual(['vpc.rename']);
  });

  test('a retried rename that already took effect is not sent again', async () => {
    const cloud = fakeCloud({ 'service.get': { service_id: 's1', name: 'after', status: 'READY' } });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.rename'],
      { input: { project_id: 'p1', service_id: 's1', name: 'after' } },
    );
    expect(result).toMatchObject({ name: 'after', alreadyApplied: true });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.get']);
  });

  test('an attach retried after a lost answer is seen as done from the current vpc_endpoint', async () => {
    const current = Service.parse({ service_id: 's1', status: 'READY', vpc_endpoint: { vpc_id: '7' } });
    const cloud = fakeCloud({ 'service.get': current });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.attachToVpc'],
      { input: { project_id: 'p1', service_id: 's1', vpc_id: '7' } },
    );
    expect(result).toMatchObject({ alreadyApplied: true });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.get']);
  });

  test('a create with no existing resource creates it', async () => {
    const cloud = fakeCloud({
      'service.list': [],
      'service.create': { service_id: 'new1', status: 'QUEUED' },
    });
    const result = await new MockActivityEnvironment().run(
      activitiesFor(cloud)['service.create'],
      createInput,
    );
    expect(result).toEqual({ service_id: 'new1', status: 'QUEUED' });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.list', 'service.create']);
  });

  test('a first attempt whose name is taken fails clearly instead of duplicating', async () => {
    const cloud = fakeCloud({ 'service.list': [{ service_id: 'old1', name: 'orders', status: 'READY' }] });
    const failure = await failureOf(
      new MockActivityEnvironment().run(activitiesFor(cloud)['service.create'], createInput),
    );
    expect(failure.type).toBe('RESOURCE_NAME_TAKEN');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('"orders"');
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.list']);
  });

  test('a retried attempt adopts what an earlier attempt created', async () => {
    const cloud = fakeCloud({ 'service.list': [{ service_id: 'old1', name: 'orders', status: 'QUEUED' }] });
    const result = await new MockActivityEnvironment({ attempt: 3 }).run(
      activitiesFor(cloud)['service.create'],
      createInput,
    );
    expect(result).toMatchObject({ service_id: 'old1', adopted: true });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.list']);
  });

  test('listed services are matched as they arrived and only the adopted one is read with the schema', async () => {
    const cloud = fakeCloud({
      'service.list': [
        { service_id: 7, name: 'billing', status: 'READY' },
        { service_id: 'old1', name: 'orders', status: 'QUEUED', field_from_a_newer_api: 'x' },
      ],
    });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.create'],
      createInput,
    );
    expect(result).toMatchObject({ service_id: 'old1', adopted: true });
    expect(result).not.toHaveProperty('field_from_a_newer_api');
  });

  test('an adopted service that breaks the response schema fails as an invalid answer', async () => {
    const cloud = fakeCloud({ 'service.list': [{ service_id: 5, name: 'orders', status: 'QUEUED' }] });
    const failure = await failureOf(
      new MockActivityEnvironment({ attempt: 2 }).run(activitiesFor(cloud)['service.create'], createInput),
    );
    expect(failure.type).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(failure.message).toContain('service_id');
  });

  test('a list answer that is not a list of objects fails as an invalid answer', async () => {
    const cloud = fakeCloud({ 'service.list': { services: [] } });
    const failure = await failureOf(
      new MockActivityEnvironment({ attempt: 2 }).run(activitiesFor(cloud)['service.create'], createInput),
    );
    expect(failure.type).toBe('CLOUD_API_INVALID_RESPONSE');
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.list']);
  });

  test('adoptExisting takes over a same-named resource on the first attempt', async () => {
    const cloud = fakeCloud({ 'vpc.list': [{ id: '7', name: 'main' }] });
    const result = await new MockActivityEnvironment().run(activitiesFor(cloud)['vpc.create'], {
      input: { project_id: 'p1', name: 'main', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
      adoptExisting: true,
    });
    expect(result).toMatchObject({ id: '7', adopted: true });
  });

  test('a service being deleted is not adopted', async () => {
    const cloud = fakeCloud({
      'service.list': [{ service_id: 'old1', name: 'orders', status: 'DELETING' }],
      'service.create': { service_id: 'new1' },
    });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.create'],
      createInput,
    );
    expect(result).toEqual({ service_id: 'new1' });
  });

  test('a fork without a name looks for the default fork name under the same parent', async () => {
    const cloud = fakeCloud({
      'service.get': { service_id: 'par1', name: 'orders' },
      'service.list': [
        { service_id: 'f0', name: 'orders-fork', forked_from: { service_id: 'other' } },
        { service_id: 'f1', name: 'orders-fork', forked_from: { service_id: 'par1' }, status: 'QUEUED' },
      ],
    });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.fork'],
      {
        input: { project_id: 'p1', service_id: 'par1', fork_strategy: 'NOW' },
      },
    );
    expect(result).toMatchObject({ service_id: 'f1', adopted: true });
  });

  test('a peering is matched by its peer, not by a name', async () => {
    const peer = { peer_account_id: 'acc', peer_region_code: 'us-east-1', peer_vpc_id: 'vpc-9' };
    const cloud = fakeCloud({ 'peering.list': [{ id: '5', ...peer }] });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['peering.create'],
      {
        input: { project_id: 'p1', vpc_id: '3', ...peer },
      },
    );
    expect(result).toMatchObject({ id: '5', adopted: true });
  });

  test('input that breaks the request schema fails before any call', async () => {
    const cloud = fakeCloud({});
    const failure = await failureOf(
      new MockActivityEnvironment().run(activitiesFor(cloud)['service.resize'], {
        input: { project_id: 'p1', service_id: 's1', cpu_millis: '1000', memory_gbs: '5' },
      }),
    );
    expect(failure.type).toBe('ACTIVITY_INPUT_INVALID');
    expect(failure.message).toContain('1000/5');
    expect(cloud.seen).toHaveLength(0);
  });

  test('operations without a response body give an empty object', async () => {
    const cloud = fakeCloud({ 'service.delete': undefined });
    const result = await new MockActivityEnvironment().run(activitiesFor(cloud)['service.delete'], {
      input: { project_id: 'p1', service_id: 's1' },
    });
    expect(result).toEqual({});
  });
});

describe('changes that took effect on an earlier attempt', () => {
  const stopInput = { input: { project_id: 'p1', service_id: 's1' } };

  test('a retried stop of a service that is already PAUSED succeeds without sending it again', async () => {
    const cloud = fakeCloud({ 'service.get': { service_id: 's1', status: 'PAUSED' } });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.stop'],
      stopInput,
    );
    expect(result).toMatchObject({ service_id: 's1', status: 'PAUSED', alreadyApplied: true });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.get']);
  });

  test('a retried stop of a running service sends it', async () => {
    const cloud = fakeCloud({ 'service.get': { status: 'READY' }, 'service.stop': { status: 'PAUSING' } });
    const result = await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.stop'],
      stopInput,
    );
    expect(result).toEqual({ status: 'PAUSING' });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.get', 'service.stop']);
  });

  test('a first attempt always sends, so the API rules stand', async () => {
    const paused = new CloudApiError({
      code: 'CLOUD_API_BAD_REQUEST',
      message: 'already paused',
      status: 400,
    });
    const cloud = fakeCloud({ 'service.get': { status: 'PAUSED' }, 'service.stop': paused });
    const failure = await failureOf(
      new MockActivityEnvironment().run(activitiesFor(cloud)['service.stop'], stopInput),
    );
    expect(failure.type).toBe('CLOUD_API_BAD_REQUEST');
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.stop']);
  });

  test('a retried delete of a service that is gone succeeds', async () => {
    const gone = new CloudApiError({ code: 'CLOUD_API_NOT_FOUND', message: 'no such service', status: 404 });
    const cloud = fakeCloud({ 'service.get': gone });
    const result = await new MockActivityEnvironment({ attempt: 3 }).run(
      activitiesFor(cloud)['service.delete'],
      stopInput,
    );
    expect(result).toEqual({ alreadyApplied: true });
  });

  test('a retried attach holds only for the same VPC', async () => {
    const attach = { input: { project_id: 'p1', service_id: 's1', vpc_id: '7' } };
    const cloud = fakeCloud({
      'service.get': Service.parse({ status: 'READY', vpcEndpoint: { vpc_id: '8' } }),
      'service.attachToVpc': { message: 'ok' },
    });
    await new MockActivityEnvironment({ attempt: 2 }).run(
      activitiesFor(cloud)['service.attachToVpc'],
      attach,
    );
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.get', 'service.attachToVpc']);
  });
});

describe('error mapping', () => {
  const table: Array<[CloudApiErrorCode, boolean]> = [
    ['CLOUD_API_BAD_REQUEST', true],
    ['CLOUD_API_UNAUTHORIZED', true],
    ['CLOUD_API_FORBIDDEN', true],
    ['CLOUD_API_NOT_FOUND', true],
    ['CLOUD_API_INVALID_RESPONSE', true],
    ['CLOUD_API_CONFLICT', false],
    ['CLOUD_API_SERVER_ERROR', false],
    ['CLOUD_API_TIMEOUT', false],
    ['CLOUD_API_NETWORK', false],
    ['CLOUD_API_RATE_LIMITED', false],
  ];
  test.each(table)('%s → nonRetryable %s, type is the code', (code, nonRetryable) => {
    const failure = toActivityFailure(new CloudApiError({ code, message: `api said ${code}`, status: 400 }));
    expect(failure.type).toBe(code);
    expect(failure.nonRetryable).toBe(nonRetryable);
    expect(failure.message).toBe(`api said ${code}`);
  });

  test('429 retries after the Retry-After delay', () => {
    const failure = toActivityFailure(
      new CloudApiError({
        code: 'CLOUD_API_RATE_LIMITED',
        message: 'slow down',
        status: 429,
        retryAfterMs: 2_000,
      }),
    );
    expect(failure.nextRetryDelay).toBe(2_000);
  });

  test('429 with Retry-After: 0 retries at once, not never (a zero delay means no retry to Temporal)', () => {
    const failure = toActivityFailure(
      new CloudApiError({ code: 'CLOUD_API_RATE_LIMITED', message: 'now', status: 429, retryAfterMs: 0 }),
    );
    expect(failure.nextRetryDelay).toBe(1);
    expect(failure.nonRetryable).toBe(false);
  });

  test('an activity surfaces the mapped failure', async () => {
    const cloud = fakeCloud({
      'service.stop': new CloudApiError({
        code: 'CLOUD_API_BAD_REQUEST',
        message: 'service is paused',
        status: 400,
      }),
    });
    const failure = await failureOf(
      new MockActivityEnvironment().run(activitiesFor(cloud)['service.stop'], {
        input: { project_id: 'p1', service_id: 's1' },
      }),
    );
    expect(failure.type).toBe('CLOUD_API_BAD_REQUEST');
    expect(failure.message).toBe('service is paused');
  });
});

describe('calls run as local activities', () => {
  const stopInput = { input: { project_id: 'p1', service_id: 's1' } };

  test('a local change sends first: no read when the API takes it', async () => {
    const cloud = fakeCloud({ 'service.stop': { service_id: 's1', status: 'PAUSING' } });
    const result = await new MockActivityEnvironment({ attempt: 1, isLocal: true }).run(
      activitiesFor(cloud)['service.stop'],
      stopInput,
    );
    expect(result).toMatchObject({ status: 'PAUSING' });
    expect(result).not.toHaveProperty('alreadyApplied');
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.stop']);
  });

  test('a local change re-run after a worker died finds it applied when the API refuses it again', async () => {
    const refusals: CloudApiErrorCode[] = [
      'CLOUD_API_BAD_REQUEST',
      'CLOUD_API_CONFLICT',
      'CLOUD_API_NOT_FOUND',
    ];
    for (const code of refusals) {
      const cloud = fakeCloud({
        'service.stop': new CloudApiError({ code, message: 'service.stop failed: the service is paused' }),
        'service.get': { service_id: 's1', status: 'PAUSED' },
      });
      const result = await new MockActivityEnvironment({ attempt: 1, isLocal: true }).run(
        activitiesFor(cloud)['service.stop'],
        stopInput,
      );
      expect(result).toMatchObject({ status: 'PAUSED', alreadyApplied: true });
      expect(cloud.seen.map((c) => c.action)).toEqual(['service.stop', 'service.get']);
    }
  });

  test('a refusal stands when the change does not hold, and other failures are not checked', async () => {
    const refused = fakeCloud({
      'service.stop': new CloudApiError({
        code: 'CLOUD_API_BAD_REQUEST',
        message: 'service.stop failed: HTTP 400',
      }),
      'service.get': { service_id: 's1', status: 'QUEUED' },
    });
    const failure = await failureOf(
      new MockActivityEnvironment({ attempt: 1, isLocal: true }).run(
        activitiesFor(refused)['service.stop'],
        stopInput,
      ),
    );
    expect(failure.type).toBe('CLOUD_API_BAD_REQUEST');
    expect(refused.seen.map((c) => c.action)).toEqual(['service.stop', 'service.get']);

    const broken = fakeCloud({
      'service.stop': new CloudApiError({
        code: 'CLOUD_API_SERVER_ERROR',
        message: 'service.stop failed: HTTP 500',
      }),
      'service.get': { service_id: 's1', status: 'PAUSED' },
    });
    const serverError = await failureOf(
      new MockActivityEnvironment({ attempt: 1, isLocal: true }).run(
        activitiesFor(broken)['service.stop'],
        stopInput,
      ),
    );
    expect(serverError.type).toBe('CLOUD_API_SERVER_ERROR');
    expect(broken.seen.map((c) => c.action)).toEqual(['service.stop']);
  });

  test('a resize back to the size an UNSTABLE service reports is sent: the layout is put right again', async () => {
    const resize = { input: { project_id: 'p1', service_id: 's1', cpu_millis: '2000', memory_gbs: '8' } };
    const layout = { resources: [{ spec: { cpu_millis: 2000, memory_gbs: 8 } }] };
    const cloud = fakeCloud({
      'service.get': { status: 'UNSTABLE', ...layout },
      'service.resize': { status: 'CONFIGURING', ...layout },
    });
    const result = await new MockActivityEnvironment({ attempt: 1, isLocal: true }).run(
      activitiesFor(cloud)['service.resize'],
      resize,
    );
    expect(result).toMatchObject({ status: 'CONFIGURING' });
    expect(cloud.seen.map((c) => c.action)).toEqual(['service.resize']);
  });

  test('a local change cancelled before it was sent sends nothing', async () => {
    const cloud = fakeCloud({ 'service.get': { status: 'READY' }, 'service.stop': { status: 'PAUSING' } });
    const env = new MockActivityEnvironment({ attempt: 1, isLocal: true });
    env.cancel();
    await expect(env.run(activitiesFor(cloud)['service.stop'], stopInput)).rejects.toBeInstanceOf(
      CancelledFailure,
    );
    expect(cloud.seen.map((c) => c.action)).not.toContain('service.stop');
  });

  test('asked to record its attempts, a call answers with its attempt and names step and attempt in its failures', async () => {
    const read = { input: { project_id: 'p1', service_id: 's1' }, recordAttemptsFor: 'each[2].look' };
    const answered = fakeCloud({ 'service.get': { service_id: 's1', status: 'READY' } });
    const result = await new MockActivityEnvironment({ attempt: 3, isLocal: true }).run(
      activitiesFor(answered)['service.get'],
      read,
    );
    expect(result).toEqual({ value: { service_id: 's1', status: 'READY' }, attempt: 3 });

    const refused = fakeCloud({
      'service.get': new CloudApiError({
        code: 'CLOUD_API_RATE_LIMITED',
        message: 'HTTP 429',
        retryAfterMs: 12_000,
      }),
    });
    const failure = await failureOf(
      new MockActivityEnvironment({ attempt: 2, isLocal: true }).run(
        activitiesFor(refused)['service.get'],
        read,
      ),
    );
    expect(failure.type).toBe('CLOUD_API_RATE_LIMITED');
    expect(failure.nextRetryDelay).toBe(12_000);
    expect(callAttemptOf(failure.details ?? [])).toEqual({ step: 'each[2].look', attempt: 2 });
    // Without the request the answer and the failure are as they always were.
    const plain = await failureOf(
      new MockActivityEnvironment({ attempt: 2, isLocal: true }).run(activitiesFor(refused)['service.get'], {
        input: read.input,
      }),
    );
    expect(callAttemptOf(plain.details ?? [])).toBeUndefined();
  });
});
