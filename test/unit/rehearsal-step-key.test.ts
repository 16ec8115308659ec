// Step keys in runbook tests: a key names its step last, so a case may name a step by id or key.
import { namesStep, stepIdOfKey } from '../../rehearsal/step-key';

describe('step keys', () => {
  it.each([
    ['pooler', 'pooler'],
    ['each[2].stop', 'stop'],
    ['create/undo.delete_service', 'delete_service'],
    ['outer[0].inner[3]', 'inner'],
  ])('%s names step %s', (key, id) => {
    expect(stepIdOfKey(key)).toBe(id);
    expect(namesStep(key, id)).toBe(true);
    expect(namesStep(key, key)).toBe(true);
  });

  it('does not take one step for another', () => {
    expect(namesStep('each[2].stop', 'each')).toBe(false);
    expect(namesStep('pooler_ready', 'pooler')).toBe(false);
  });
});
