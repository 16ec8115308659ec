// The local cloud against the vendor's API document: in each dialect, one walk through every
// catalogue action (and some error answers), each answer checked by startTestCloud's answer check
// (tiger-cli v0.21.2's openapi.yaml with the overlays of test/api-conformance/). Every other suite that
// starts a test cloud runs the same check; this one makes sure that every action is answered, in
// both dialects, and that a broken answer does fail the suite.
import { ACTION_NAMES, type ActionName } from '../../cloud/operations';
import type { ApiAnswer } from '../../local-cloud/server';
import { expectCloudError, startConformanceCloud } from '../helpers/api-conformance-fixtures';
import { DIALECTS, startTestCloud } from '../helpers/local-cloud';
import { describeWithTools } from '../helpers/tool-requirements';
import { vendorDocumentMissing } from '../helpers/vendor-openapi';

describeWithTools("the local cloud's answers match the vendor document", vendorDocumentMissing(), () => {
  test.each(DIALECTS)('%s dialect: every catalogue action, and error answers', async (dialect) => {
    const answers: ApiAnswer[] = [];
    const fx = await startConformanceCloud({ dialect, onAnswer: (answer) => answers.push(answer) });
    try {
      const { client: c } = fx;
      const p = { project_id: fx.projectId };
      await c.auth.info({});
      await c.project.list({});

      const vpc = await fx.readyVpc('conformance-net');
      const v = { ...p, vpc_id: vpc.id };
      await c.vpc.list(p);
      await c.vpc.get(v);
      await c.vpc.rename({ ...v, name: 'conformance-net-2' });
      const peering = await c.peering.create({
        ...v,
        peer_account_id: '123456789012',
        peer_region_code: 'us-west-2',
        peer_vpc_id: 'vpc-123',
      });
      await c.peering.list(v);
      await c.peering.get({ ...v, peering_id: peering.id! });

      const s = { ...p, service_id: await fx.readyService('conformance-svc', true) };
      await c.service.list(p);
      await c.service.get(s);
      await c.service.logs(s);
      await c.service.logs({ ...s, search: ['checkpoint'], severities: ['LOG'] });
      await c.service.metricsAvailableSeries(s);
      const created = Date.parse((await c.service.get(s)).created!);
      const window = {
        from: new Date(created - 600_000).toISOString(),
        to: new Date(created + 3_600_000).toISOString(),
      };
      await c.service.metricsSeries({ ...s, ...window, name: 'timescale_cloud_system_cpu_usage_millicores' });
      await c.service.rename({ ...s, name: 'conformance-svc-2' });
      await c.service.setEnvironment({ ...s, environment: 'PROD' });
      await c.service.updatePassword({ ...s, password: 'a-long-enough-password-1' });
      await c.service.enablePooler(s);
      fx.settle();
      await c.service.disablePooler(s);
      fx.settle();
      await c.service.attachToVpc({ ...s, vpc_id: vpc.id });
      fx.settle();
      await c.service.get(s); // with its VPC endpoint
      await c.service.detachFromVpc({ ...s, vpc_id: vpc.id });
      fx.settle();
      await c.service.resize({ ...s, cpu_millis: '1000', memory_gbs: '4' });
      fx.settle();
      await c.service.setHA({ ...s, replica_count: 2, sync_replica_count: 1 });
      fx.settle();
      const replicas = [{ key: 'role', value: 'replica' }];
      await c.service.metricsSeries({
        ...s,
        ...window,
        name: 'timescale_cloud_database_qps',
        filters: replicas,
      });

      const set = await c.replicaSet.create({
        ...s,
        name: 'readers',
        nodes: 1,
        cpu_millis: 1000,
        memory_gbs: 4,
      });
      const r = { ...s, replica_set_id: set.id! };
      fx.settle();
      await c.replicaSet.list(s);
      await c.service.get({ ...p, service_id: set.id! }); // the standby view
      await c.replicaSet.enablePooler(r);
      await c.replicaSet.disablePooler(r);
      await c.replicaSet.setEnvironment({ ...r, environment: 'PROD' });
      await c.replicaSet.resize({ ...r, cpu_millis: '2000', memory_gbs: '8' });
      fx.settle();
      await c.replicaSet.delete(r);
      fx.settle();

      const fork = await c.service.fork({ ...s, fork_strategy: 'NOW' });
      const shared = await c.service.create({
        ...p,
        name: 'free',
        cpu_millis: 'shared',
        memory_gbs: 'shared',
      });
      fx.settle();
      await c.service.get({ ...p, service_id: shared.service_id! }); // null sizes
      await c.service.stop(s);
      fx.settle();
      await c.service.start(s);
      fx.settle();

      await expectCloudError(c.service.get({ ...p, service_id: 'nosuchsvc0' }), {
        code: 'CLOUD_API_NOT_FOUND',
        status: 404,
      });
      await expectCloudError(c.service.start(s), { code: 'CLOUD_API_BAD_REQUEST', status: 400 });
      fx.tc.cloud.addFaults({ action: 'service.list', kind: 'error', status: 503, times: 1 });
      await expectCloudError(c.service.list(p), { code: 'CLOUD_API_SERVER_ERROR', status: 503 });

      await c.peering.delete({ ...v, peering_id: peering.id! });
      for (const service_id of [s.service_id, fork.service_id!, shared.service_id!]) {
        await c.service.delete({ ...p, service_id });
      }
      fx.settle();
      await c.vpc.delete(v);
    } finally {
      await fx.close(); // throws when an answer broke the document
    }
    const succeeded = new Set(answers.filter((a) => a.status < 300).map((a) => a.action));
    expect(ACTION_NAMES.filter((action: ActionName) => !succeeded.has(action))).toEqual([]);
    expect(new Set(answers.map((a) => a.dialect))).toEqual(new Set([dialect]));
    expect(answers.filter((a) => a.status >= 400).map((a) => a.status)).toEqual([404, 400, 503]);
  });

  test('an answer that breaks the document fails close(), naming operation, status, dialect and path', async () => {
    const tc = await startTestCloud();
    expect(tc.answerCheck).toBeDefined();
    tc.answerCheck!.observe({
      action: 'service.get',
      status: 200,
      body: { service_id: 'abcdefghij', name: 7, initial_password: 'not-in-the-message' },
      dialect: 'seed',
    });
    const closing = tc.close();
    await expect(closing).rejects.toThrow(/service\.get 200 \(seed\): name: must be string/);
    await expect(closing).rejects.not.toThrow(/not-in-the-message/);
  });

  test('checkAnswers: false leaves the check off', async () => {
    const tc = await startTestCloud({ checkAnswers: false });
    expect(tc.answerCheck).toBeUndefined();
    await tc.close();
  });
});
