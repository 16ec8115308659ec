// Expectations of `tideline test` on what a case's cloud holds beyond a service's own fields: a
// service's HA layout, add-ons and read replica sets, a VPC's fields and its peerings. Each is met by the
// state it describes and is one mismatch, naming the field, when it is not.
import { unmetExpectations, type Outcome } from '../../rehearsal/expectations';
import type { Expectations } from '../../rehearsal/test-file-schema';
import type { RunReport } from '../../contract/run-messages';

const ids = { projectId: 'p1', services: new Map([['shop', 's1']]), vpcs: new Map([['main', 'v1']]) };
const report: RunReport = {
  runbook: 'x',
  status: 'succeeded',
  startedAt: 0,
  steps: [],
  outputs: {},
  secretOutputs: [],
};
const outcome: Outcome = {
  report,
  calls: {},
  sequence: [],
  services: [
    {
      name: 'shop',
      service_id: 's1',
      status: 'READY',
      service_type: 'TIMESCALEDB',
      ha_replicas: { replica_count: 2, sync_replica_count: 1 },
      read_replica_sets: [
        {
          id: 'r1',
          name: 'reports',
          nodes: 2,
          cpu_millis: 1000,
          status: 'active',
          metadata: { environment: 'PROD' },
          connection_pooler: { endpoint: { host: 'pooler.example' } },
        },
        { id: 'r2', name: 'broken', nodes: 1, status: 'error', connection_pooler: {} },
      ],
    },
    // A service as an answer may leave out its HA layout: it has none.
    { name: 'plain', service_id: 's2', status: 'READY', service_type: 'POSTGRES' },
  ],
  vpcs: [
    { name: 'main', id: 'v1', cidr: '10.0.0.0/16', region_code: 'us-east-1' },
    { name: 'bare', id: 'v2', cidr: '10.1.0.0/16', region_code: 'us-east-1' },
  ],
  peerings: {
    v1: [
      {
        id: 'pc1',
        peer_vpc_id: 'vpc-0abc',
        peer_account_id: '123',
        peer_region_code: 'eu-west-1',
        status: 'active',
      },
    ],
  },
  secrets: [],
};

const unmet = (cloud: Expectations['cloud']) =>
  unmetExpectations({ status: 'succeeded', cloud }, outcome, ids).map((m) => [m.what, m.expected, m.actual]);

describe('HA layout', () => {
  it('holds when the counts given match, an absent layout counting as none', () => {
    expect(
      unmet({
        services: {
          shop: { ha_replicas: { replica_count: 2, sync_replica_count: 1 } },
          plain: { ha_replicas: { replica_count: 0, sync_replica_count: 0 } },
        },
      }),
    ).toEqual([]);
    expect(unmet({ services: { shop: { ha_replicas: { replica_count: 2 } } } })).toEqual([]);
  });

  it('names each count that differs', () => {
    expect(
      unmet({
        services: {
          shop: { ha_replicas: { replica_count: 1, sync_replica_count: 0 } },
          plain: { ha_replicas: { replica_count: 1 } },
        },
      }),
    ).toEqual([
      ['cloud.services.shop.ha_replicas.replica_count', 1, 2],
      ['cloud.services.shop.ha_replicas.sync_replica_count', 0, 1],
      ['cloud.services.plain.ha_replicas.replica_count', 1, 0],
    ]);
  });
});

describe('add-ons', () => {
  it('reads the add-on from the service type, in either dialect', () => {
    expect(unmet({ services: { shop: { addons: ['time-series'] }, plain: { addons: [] } } })).toEqual([]);
    const seed: Outcome = {
      ...outcome,
      services: [
        { name: 'shop', service_id: 's1', status: 'READY', service_type: 'NEUTRALDB' },
        { name: 'plain', service_id: 's2', status: 'READY', service_type: 'VECTOR' },
      ],
    };
    const expectations: Expectations = {
      status: 'succeeded',
      cloud: { services: { shop: { addons: ['time-series'] }, plain: { addons: ['ai'] } } },
    };
    expect(unmetExpectations(expectations, seed, ids)).toEqual([]);
  });

  it('names a service made without the add-on expected, or with one not expected', () => {
    expect(unmet({ services: { shop: { addons: [] }, plain: { addons: ['time-series'] } } })).toEqual([
      ['cloud.services.shop.addons', [], ['time-series']],
      ['cloud.services.plain.addons', ['time-series'], []],
    ]);
  });
});

describe('read replica sets', () => {
  it('holds for the fields given and for a set that is absent', () => {
    expect(
      unmet({
        services: {
          shop: {
            status: 'READY',
            replica_sets: {
              reports: { status: 'active', nodes: 2, cpu_millis: 1000, environment: 'PROD', pooler: true },
              broken: { status: 'error', pooler: false },
              gone: 'absent',
            },
          },
          plain: { replica_sets: { reports: 'absent' } },
        },
      }),
    ).toEqual([]);
  });

  it('names a differing field, a set that should be gone and one that is missing', () => {
    expect(
      unmet({
        services: {
          shop: {
            replica_sets: {
              reports: { status: 'creating', nodes: 3, environment: 'DEV', pooler: false },
              broken: 'absent',
              missing: { status: 'active' },
            },
          },
        },
      }),
    ).toEqual([
      ['cloud.services.shop.replica_sets.reports.status', 'creating', 'active'],
      ['cloud.services.shop.replica_sets.reports.nodes', 3, 2],
      ['cloud.services.shop.replica_sets.reports.environment', 'DEV', 'PROD'],
      ['cloud.services.shop.replica_sets.reports.pooler', false, true],
      ['cloud.services.shop.replica_sets.broken', 'absent', 'error (r2)'],
      ['cloud.services.shop.replica_sets.missing', 'present', 'absent'],
    ]);
  });
});

describe('VPCs and their peerings', () => {
  it('holds for present, absent, the fields given and peerings by peer VPC id', () => {
    expect(
      unmet({
        vpcs: {
          main: {
            cidr: '10.0.0.0/16',
            region_code: 'us-east-1',
            peerings: {
              'vpc-0abc': { status: 'active', peer_account_id: '123', peer_region_code: 'eu-west-1' },
              'vpc-other': 'absent',
            },
          },
          bare: 'present',
          gone: 'absent',
        },
      }),
    ).toEqual([]);
    // A VPC whose peerings were not read has none.
    expect(unmet({ vpcs: { bare: { peerings: { 'vpc-0abc': 'absent' } } } })).toEqual([]);
  });

  it('names a differing field, a peering that should be gone or is missing, and a missing VPC', () => {
    expect(
      unmet({
        vpcs: {
          main: {
            cidr: '10.9.0.0/16',
            peerings: { 'vpc-0abc': { status: 'failed', peer_account_id: '456' } },
          },
          bare: { peerings: { 'vpc-0abc': { status: 'active' } } },
          gone: { cidr: '10.0.0.0/16' },
          other: 'present',
        },
      }),
    ).toEqual([
      ['cloud.vpcs.main.cidr', '10.9.0.0/16', '10.0.0.0/16'],
      ['cloud.vpcs.main.peerings.vpc-0abc.status', 'failed', 'active'],
      ['cloud.vpcs.main.peerings.vpc-0abc.peer_account_id', '456', '123'],
      ['cloud.vpcs.bare.peerings.vpc-0abc', 'present', 'absent'],
      ['cloud.vpcs.gone', 'present', 'absent'],
      ['cloud.vpcs.other', 'present', 'absent'],
    ]);
    expect(unmet({ vpcs: { main: { peerings: { 'vpc-0abc': 'absent' } } } })).toEqual([
      ['cloud.vpcs.main.peerings.vpc-0abc', 'absent', 'active (pc1)'],
    ]);
  });
});
