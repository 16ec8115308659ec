// What a rehearsal's cloud starts with (rehearsal/rehearsal-seed.ts): the inputs the steps pass
// whole as project_id, vpc_id or service_id are the resources; each is read from the real cloud
// (a stand-in reader here) for its name and shape, and the inputs name the rehearsal's copies.
import path from 'node:path';
import { checkRunbookFile } from '../../dsl/loader';
import type { RunbookDefinition } from '../../dsl/definition';
import { rehearsalSeed, resourceInputs, type ResourceReader } from '../../rehearsal/rehearsal-seed';

const RUNBOOKS = path.resolve(__dirname, '..', '..', 'runbooks');

function runbook(name: string): RunbookDefinition {
  const { definition } = checkRunbookFile(path.join(RUNBOOKS, `${name}.yaml`), { runbooksRoot: RUNBOOKS });
  if (definition === undefined) throw new Error(`${name} does not validate`);
  return definition;
}

const reads: string[] = [];
const reader: ResourceReader = async (projectId, action, id) => {
  reads.push(`${projectId} ${action} ${id}`);
  if (action === 'vpc.get') return { id, name: 'main-vpc', cidr: '10.9.0.0/16', secret: 'never copied' };
  return {
    service_id: id,
    name: 'shop',
    status: 'READY',
    metadata: { environment: 'PROD' },
    resources: [{ spec: { cpu_millis: 2000 } }],
  };
};

beforeEach(() => (reads.length = 0));

test('finds the inputs the steps pass as resource ids', () => {
  expect(Object.fromEntries(resourceInputs(runbook('provision-production-service')))).toEqual({
    project_id: 'project',
    vpc_id: 'vpc',
  });
  expect(Object.fromEntries(resourceInputs(runbook('resize-with-rollback')))).toMatchObject({
    project_id: 'project',
    service_id: 'service',
  });
});

test("copies a VPC's name and CIDR, and points the inputs at the rehearsal cloud's copies", async () => {
  const seed = await rehearsalSeed(
    runbook('provision-production-service'),
    { project_id: 'real-project', name: 'billing-db', vpc_id: 'vpc-123' },
    reader,
  );
  expect(reads).toEqual(['real-project vpc.get vpc-123']);
  expect(seed).toEqual({
    inputs: {
      project_id: '${{ cloud.project_id }}',
      name: 'billing-db',
      vpc_id: '${{ cloud.vpcs.main-vpc.id }}',
    },
    cloud: { vpcs: [{ name: 'main-vpc', cidr: '10.9.0.0/16' }], services: [] },
  });
});

test("copies a service's status, size and environment", async () => {
  const seed = await rehearsalSeed(
    runbook('resize-with-rollback'),
    { project_id: 'real-project', service_id: 'svc-9', cpu_millis: '4000' },
    reader,
  );
  expect(seed.cloud.services).toEqual([
    { name: 'shop', status: 'READY', cpu_millis: '2000', environment: 'PROD' },
  ]);
  expect(seed.inputs.service_id).toBe('${{ cloud.services.shop.id }}');
});

test('a resource the reader cannot read fails the seed', async () => {
  await expect(
    rehearsalSeed(
      runbook('provision-production-service'),
      { project_id: 'p', name: 'x-db', vpc_id: 'v' },
      () => Promise.reject(new Error('404 not found')),
    ),
  ).rejects.toThrow('404 not found');
});
