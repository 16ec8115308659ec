// Handler of auth.info: who the caller's key pair is. The local cloud has no users or plans, so
// the key's name, creation time, plan type and issuing user are fixed, documented stand-ins.
import type { AuthInfo } from '../../cloud/models';
import type { HandlerTable } from './handler-types';

/** What the local cloud reports for every key pair besides its public key and project. */
export const LOCAL_KEY_FACTS = {
  created: '2025-01-01T00:00:00Z',
  planType: 'SCALE',
  issuingUser: { id: 'local-user', name: 'Local Cloud', email: 'owner@local-cloud.test' },
} as const;

export const authHandlers: Pick<HandlerTable, 'auth.info'> = {
  'auth.info': ({ project }): AuthInfo => ({
    type: 'apiKey',
    apiKey: {
      public_key: project.access_key,
      name: `${project.name} key`,
      created: LOCAL_KEY_FACTS.created,
      project: { id: project.id, name: project.name, plan_type: LOCAL_KEY_FACTS.planType },
      issuing_user: { ...LOCAL_KEY_FACTS.issuingUser },
    },
  }),
};
