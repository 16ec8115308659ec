// The workflow type names clients use (contract/workflow-types.ts) are the names of the workflow
// functions the worker registers (workflows/index.ts).
import { WORKFLOW_TYPES } from '../../contract/workflow-types';
import * as workflows from '../../workflows';

test('every registered workflow has its type name in the contract, and no other name is there', () => {
  expect(Object.keys(workflows).sort()).toEqual([...WORKFLOW_TYPES].sort());
});
