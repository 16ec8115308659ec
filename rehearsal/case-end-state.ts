// What a case's cloud holds at the case's end, read through its API as the `cloud` expectations
// compare it: the project's services and VPCs, each VPC's peerings, every name that existed along
// the way, and the cloud's password check.
import type { CaseCloud } from './case-cloud';
import type { CloudOutcome } from './expectations';

export async function readEndState(cloud: CaseCloud): Promise<CloudOutcome> {
  const { api } = cloud;
  const project_id = cloud.ids.projectId;
  const [services, vpcs] = await Promise.all([
    api.service.list({ project_id }),
    api.vpc.list({ project_id }),
  ]);
  const peerings = Object.fromEntries(
    await Promise.all(
      vpcs.flatMap(({ id: vpc_id }) =>
        vpc_id === undefined
          ? []
          : [api.peering.list({ project_id, vpc_id }).then((list) => [vpc_id, list] as const)],
      ),
    ),
  );
  return {
    services,
    vpcs,
    peerings,
    existed: cloud.existed(),
    passwordMatches: cloud.cloud.passwordMatches,
  };
}
