// The rehearsal an agent asks for provision-production-service (as the MCP rehearse tool seeds it:
// a VPC copied by name, the inputs naming the rehearsal cloud's copies), with the faults given.
// Shared by the rehearsal benchmark and the rehearsal tests.
import { checkRunbookFile } from '../../dsl/loader';
import type { RehearsalRequest } from '../../rehearsal/rehearse-run';
import { PROVISION_RUNBOOK, RUNBOOKS_DIR } from './repo';

export function provisionRehearsal(faults: unknown[]): RehearsalRequest {
  const { definition } = checkRunbookFile(PROVISION_RUNBOOK, { runbooksRoot: RUNBOOKS_DIR });
  if (definition === undefined) throw new Error('provision-production-service does not validate');
  return {
    definition,
    inputs: {
      project_id: '${{ cloud.project_id }}',
      name: 'billing-db',
      vpc_id: '${{ cloud.vpcs.main.id }}',
    },
    cloud: { vpcs: [{ name: 'main', cidr: '10.1.0.0/16' }], services: [] },
    faults,
  };
}
