// The omitField fault (local-cloud/answer-fields.ts, fault-schema.ts, faults.ts): which paths a
// rule may name, the answer without the field, and how `times` and `*` spend the rule. Over HTTP:
// test/integration/local-cloud-omit-field.test.ts.
import { Service } from '../../cloud/models';
import { answerFieldProblem, withoutAnswerField } from '../../local-cloud/answer-fields';
import { ManualClock } from '../../local-cloud/clock';
import { FaultRuleInput } from '../../local-cloud/fault-schema';
import { FaultInjector } from '../../local-cloud/faults';
import { SeededRandom } from '../../local-cloud/random';
import { TestFault } from '../../rehearsal/test-file-schema';

const SIZE = 'resources.0.spec.cpu_millis';

/** The messages a rule is refused with, or [] when it is accepted. */
function refusals(rule: Record<string, unknown>): string[] {
  const checked = FaultRuleInput.safeParse({ kind: 'omitField', ...rule });
  return checked.success
    ? []
    : checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('the omitField rule', () => {
  it('takes a field the answer has, at any depth, through list indexes and *', () => {
    expect(refusals({ action: 'service.get', field: 'resources' })).toEqual([]);
    expect(refusals({ action: 'service.get', field: SIZE })).toEqual([]);
    expect(refusals({ action: 'service.list', field: '*.resources.*.spec.memory_gbs' })).toEqual([]);
    expect(refusals({ action: '*', field: 'vpc_endpoint', times: 2, probability: 0.5 })).toEqual([]);
  });

  it('refuses a path the answer cannot have, saying where and what is there', () => {
    expect(refusals({ action: 'service.get', field: 'resources.0.spec.cpu' })).toEqual([
      'field: service.get: resources.0.spec has no field "cpu"; it has cpu_millis, memory_gbs, volume_type',
    ]);
    expect(refusals({ action: 'service.get', field: 'resources.spec' })).toEqual([
      'field: service.get: resources is a list: write an index or * where "spec" is',
    ]);
    expect(refusals({ action: 'service.get', field: 'name.first' })).toEqual([
      'field: service.get: name has no named fields; end the path before "first"',
    ]);
    expect(refusals({ action: 'service.get', field: 'resources.0' })).toEqual([
      'field: service.get: resources.0 names an element of a list, not a field; end the path with a field name',
    ]);
    expect(refusals({ action: 'service.delete', field: 'status' })).toEqual([
      'field: service.delete: it answers without a body',
    ]);
    expect(refusals({ action: '*', field: 'no_such_field' })).toEqual([
      "field: no operation's answer has an optional field no_such_field; check the path against the catalogue (cloud/models.ts)",
    ]);
    expect(refusals({ action: 'service.get', field: 'resources..spec' })[0]).toContain(
      'field names joined by dots',
    );
    expect(refusals({ action: 'service.get' })).toHaveLength(1);
  });

  it('refuses a field the client needs, so the answer stays one the client accepts', () => {
    expect(refusals({ action: 'auth.info', field: 'type' })).toEqual([
      'field: auth.info: the answer must carry "type" (the client refuses an answer without it); name an optional field',
    ]);
    expect(answerFieldProblem(Service, 'resources.0.spec.cpu_millis')).toBeUndefined();
  });

  it("is written in a test file with `operation`, and the local cloud's refusal points at `field`", () => {
    const fault = { operation: 'service.get', kind: 'omitField', field: 'resources.0.spec.cpu' };
    const checked = TestFault.safeParse(fault);
    expect(checked.success).toBe(false);
    expect(checked.error?.issues.map((issue) => issue.path)).toEqual([['field']]);
    expect(TestFault.parse({ ...fault, field: SIZE })).toMatchObject({ field: SIZE, nth: 1 });
  });
});

describe('an answer without the field', () => {
  const answer = {
    service_id: 'svc0000001',
    status: 'READY',
    resources: [
      { id: 'r1', spec: { cpu_millis: 1000, memory_gbs: 4 } },
      { id: 'r2', spec: { cpu_millis: 2000, memory_gbs: 8 } },
    ],
  };

  it('leaves out only that field, and is still read by the client, without its size', () => {
    const withoutSize = withoutAnswerField(answer, SIZE);
    expect(withoutSize).toEqual({
      ...answer,
      resources: [{ id: 'r1', spec: { memory_gbs: 4 } }, answer.resources[1]],
    });
    expect(Service.parse(withoutSize).resources?.[0]?.spec).toEqual({ memory_gbs: 4 });
    const withoutResources = Service.parse(withoutAnswerField(answer, 'resources'));
    expect(withoutResources).toMatchObject({ service_id: 'svc0000001', status: 'READY' });
    expect(withoutResources.resources).toBeUndefined();
  });

  it('sends the field as null with `asNull`, which the client reads as absent', () => {
    const nullResources = withoutAnswerField(answer, 'resources', true);
    expect(nullResources).toEqual({ ...answer, resources: null });
    expect(Service.parse(nullResources).resources).toBeUndefined();
    expect(FaultRuleInput.parse({ kind: 'omitField', action: '*', field: 'resources' })).toMatchObject({
      asNull: false,
    });
  });

  it('leaves the field out of every element at *, and changes nothing it does not carry', () => {
    expect(withoutAnswerField([answer, answer], '*.resources')).toEqual([
      { service_id: 'svc0000001', status: 'READY' },
      { service_id: 'svc0000001', status: 'READY' },
    ]);
    expect(withoutAnswerField(answer, 'resources.*.spec.memory_gbs')).toMatchObject({
      resources: [{ spec: { cpu_millis: 1000 } }, { spec: { cpu_millis: 2000 } }],
    });
    expect(withoutAnswerField(answer, 'resources.5.spec.cpu_millis')).toEqual(answer);
    expect(withoutAnswerField(answer, 'vpc_endpoint.host')).toEqual(answer);
    expect(answer.resources[0]?.spec.cpu_millis).toBe(1000);
  });
});

describe('firing an omitField rule', () => {
  const injector = () => new FaultInjector(new SeededRandom(7), new ManualClock(0));
  const rule = (fields: Record<string, unknown>) =>
    FaultRuleInput.parse({ kind: 'omitField', action: 'service.get', field: 'resources', ...fields });

  it('applies `times` answers, then is spent', () => {
    const faults = injector();
    faults.add([rule({ times: 2 })]);
    const fired = () => faults.fireAll('service.get', 'omitField').map((spec) => spec.field);
    expect([fired(), fired(), fired()]).toEqual([['resources'], ['resources'], []]);
    expect(faults.list()).toMatchObject([{ kind: 'omitField', fired: 2, remaining: 0 }]);
  });

  it('on *, is neither seen nor spent by an operation whose answer lacks the field', () => {
    const faults = injector();
    faults.add([rule({ action: '*', times: 1 })]);
    expect(faults.fireAll('vpc.get', 'omitField')).toEqual([]);
    expect(faults.fireAll('service.delete', 'omitField')).toEqual([]);
    expect(faults.fireAll('service.resize', 'omitField')).toHaveLength(1);
    expect(faults.fireAll('service.get', 'omitField')).toEqual([]);
  });

  it('draws `probability` from the seeded generator, so a seed repeats its answers', () => {
    const draws = () => {
      const faults = injector();
      faults.add([rule({ probability: 0.5 })]);
      return Array.from({ length: 20 }, () => faults.fireAll('service.get', 'omitField').length);
    };
    const first = draws();
    expect(first).toEqual(draws());
    expect(first).toContain(0);
    expect(first).toContain(1);
  });
});
