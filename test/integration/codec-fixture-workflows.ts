// A tiny workflow for the payload-encryption test: it carries a secret input, receives a secret
// from an activity, and catches an activity failure whose message holds that secret.
import { ActivityFailure, proxyActivities } from '@temporalio/workflow';

export interface SecretActivities {
  issuePassword(owner: string): Promise<{ owner: string; password: string }>;
  rejectPassword(password: string): Promise<void>;
}

const activities = proxyActivities<SecretActivities>({
  startToCloseTimeout: '20s',
  retry: { maximumAttempts: 1 },
});

export async function secretRoundTrip(input: { owner: string; secretKey: string }): Promise<{
  secretKey: string;
  password: string;
  failureMessage: string;
}> {
  const issued = await activities.issuePassword(input.owner);
  let failureMessage = '';
  try {
    await activities.rejectPassword(issued.password);
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause) failureMessage = error.cause.message;
    else throw error;
  }
  return { secretKey: input.secretKey, password: issued.password, failureMessage };
}
