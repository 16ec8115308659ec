// The check startTestCloud runs on every answer of the local cloud: status and body against the
// vendor's API document with the overlays of its dialect, objects read closed, and problems that
// name the operation, status, dialect and JSON path, never the value sent.
import { AnswerConformanceRecorder, answerConformance } from '../helpers/answer-conformance';
import { describeWithTools } from '../helpers/tool-requirements';
import { vendorDocumentMissing } from '../helpers/vendor-openapi';

const SECRET = 'hunter2-do-not-print';

const seedService = {
  service_id: 'abcdefghij',
  project_id: 'klmnopqrst',
  name: 'svc',
  region_code: 'us-east-1',
  service_type: 'NEUTRALDB',
  created: '2026-01-01T00:00:00.123456Z',
  paused: false,
  status: 'READY',
  endpoint: { host: 'h', port: 5432 },
  connection_pooler: {},
  vpcEndpoint: { host: 'v', port: 5433, vpc_id: '7' },
  ha_replicas: { replica_count: 0, sync_replica_count: 0 },
  initial_password: SECRET,
  metadata: { environment: 'DEV' },
  metrics: { milli_cpu: 10, memory_mb: 20, storage_mb: 30 },
  resources: [{ id: 'r', spec: { cpu_millis: null, memory_gbs: null, volume_type: '' } }],
  read_replica_sets: [],
};

const { vpcEndpoint, ...common } = seedService;
const currentService = {
  ...common,
  service_type: 'TIMESCALEDB',
  vpc_endpoint: { ...vpcEndpoint, x_tideline_extra: 'ignore me' },
  metrics: null,
  x_tideline_extra: { note: 'stand-in' },
};

describeWithTools("the local cloud's answers against the vendor document", vendorDocumentMissing(), () => {
  const seed = answerConformance('seed');
  const current = answerConformance('current');

  test("each dialect's own service answer matches; the other dialect's does not", () => {
    expect(seed.check({ action: 'service.get', status: 200, body: seedService })).toEqual([]);
    expect(current.check({ action: 'service.get', status: 200, body: currentService })).toEqual([]);
    expect(seed.check({ action: 'service.get', status: 200, body: currentService })).toEqual([
      'vpc_endpoint: a field the document does not have',
      'x_tideline_extra: a field the document does not have',
      'service_type: must be one of NEUTRALDB, POSTGRES, VECTOR',
      'metrics: must be object',
    ]);
    expect(current.check({ action: 'service.get', status: 200, body: seedService })).toEqual([
      'service_type: must be one of TIMESCALEDB, POSTGRES, VECTOR',
    ]);
  });

  test('a field neither document has, a wrong type deep inside, a missing required field', () => {
    const surprise = { ...currentService, surprise: true };
    expect(current.check({ action: 'service.get', status: 200, body: surprise })).toEqual([
      'surprise: a field the document does not have',
    ]);
    const badSize = { ...seedService, resources: [{ id: 'r', spec: { cpu_millis: SECRET } }] };
    const problems = seed.check({ action: 'service.get', status: 200, body: badSize });
    expect(problems).toEqual(['resources[0].spec.cpu_millis: must be integer or null']);
    expect(
      current.check({ action: 'vpc.get', status: 200, body: { id: '1', name: 'n', cidr: '10.0.0.0/16' } }),
    ).toEqual(['region_code: missing; the document requires it']);
    expect(seed.check({ action: 'vpc.get', status: 200, body: { id: '1' } })).toEqual([]);
  });

  test('statuses and bodies: undocumented status, a body where none, none where JSON, errors', () => {
    expect(seed.check({ action: 'service.get', status: 201, body: seedService })).toEqual([
      '(status): HTTP 201 is not a status the document lists for getService',
    ]);
    expect(seed.check({ action: 'vpc.delete', status: 204, body: { message: 'gone' } })).toEqual([
      '(body): a body where the document has none',
    ]);
    expect(seed.check({ action: 'service.get', status: 200, body: undefined })).toEqual([
      '(body): no body where the document has JSON',
    ]);
    const notFound = { code: 'NOT_FOUND', message: 'service x not found' };
    expect(seed.check({ action: 'service.get', status: 404, body: notFound })).toEqual([]);
    expect(
      current.check({ action: 'service.get', status: 503, body: { code: 'INTERNAL', message: 'm' } }),
    ).toEqual([]);
    expect(seed.check({ action: 'service.get', status: 404, body: { ...notFound, details: 'd' } })).toEqual(
      [],
    );
    expect(
      current.check({ action: 'service.get', status: 404, body: { ...notFound, details: 'd' } }),
    ).toEqual([]);
    expect(current.check({ action: 'service.get', status: 404, body: { ...notFound, detail: 'd' } })).toEqual(
      ['detail: a field the document does not have'],
    );
    // updatePassword: 204 without a body in both; the current dialect's 200 body is not read.
    expect(seed.check({ action: 'service.updatePassword', status: 200, body: { message: 'm' } })).toEqual([
      '(status): HTTP 200 is not a status the document lists for updatePassword',
    ]);
    expect(current.check({ action: 'service.updatePassword', status: 200, body: { message: 'm' } })).toEqual(
      [],
    );
  });

  test('the recorder reports operation, status, dialect and path once per problem, never the value', () => {
    const recorder = new AnswerConformanceRecorder();
    const bad = { ...seedService, name: 42, initial_password: SECRET };
    recorder.observe({ action: 'service.get', status: 200, body: bad, dialect: 'seed' });
    recorder.observe({ action: 'service.get', status: 200, body: bad, dialect: 'seed' });
    recorder.observe({ action: 'service.list', status: 200, body: [seedService], dialect: 'seed' });
    recorder.observe({ action: 'vpc.rename', status: 200, body: { message: 'renamed' }, dialect: 'seed' });
    expect(recorder.answersChecked).toBe(4);
    expect(recorder.violations()).toEqual([
      'service.get 200 (seed): name: must be string (×2)',
      'vpc.rename 200 (seed): message: a field the document does not have',
    ]);
    const report = recorder.report()!;
    expect(report).toMatch(/break the vendor's API document/);
    expect(report).not.toContain(SECRET);
    expect(report).not.toContain('42');
    expect(new AnswerConformanceRecorder().report()).toBeUndefined();
  });
});
