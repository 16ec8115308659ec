// One handler per operation of the catalogue; the type makes a missing one a compile error.
import { authHandlers } from './auth-handlers';
import type { HandlerTable } from './handler-types';
import { replicaSetHandlers } from './replica-set-handlers';
import { serviceConfigHandlers } from './service-config-handlers';
import { serviceHandlers } from './service-handlers';
import { vpcHandlers } from './vpc-handlers';

export const handlers: HandlerTable = {
  ...authHandlers,
  ...vpcHandlers,
  ...serviceHandlers,
  ...serviceConfigHandlers,
  ...replicaSetHandlers,
};
