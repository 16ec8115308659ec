// Rules for an approve step's approvers: `minApprovals` and `allowSelfApproval` only mean something
// with `approvers`, a name is listed once, and a list of people alone must be able to reach
// `minApprovals` (a group's size is known only to the worker, so a group makes any number possible).
import type { RunbookProblem, ProblemPath } from './problems';
import type { ApproveStep } from './schema';

export function approverProblems(step: ApproveStep, path: ProblemPath): RunbookProblem[] {
  const problems: RunbookProblem[] = [];
  if (step.approvers === undefined) {
    for (const field of ['minApprovals', 'allowSelfApproval'] as const) {
      if (step[field] !== undefined) {
        problems.push({
          rule: 'approve-approvers',
          path: [...path, field],
          message: `\`${field}\` applies only to an approval with \`approvers\``,
          hint: 'add approvers, e.g. approvers: [alice, group:dba]',
        });
      }
    }
    return problems;
  }
  const seen = new Set<string>();
  step.approvers.forEach((approver, index) => {
    if (seen.has(approver)) {
      problems.push({
        rule: 'approve-approvers',
        path: [...path, 'approvers', index],
        message: `\`${approver}\` is listed twice`,
        hint: 'list each approver once',
      });
    }
    seen.add(approver);
  });
  const people = [...seen].filter((approver) => !approver.startsWith('group:'));
  const minApprovals = step.minApprovals ?? 1;
  if (people.length === seen.size && minApprovals > people.length) {
    problems.push({
      rule: 'approve-approvers',
      path: [...path, 'minApprovals'],
      message: `${minApprovals} approvals are needed but only ${people.length} people are listed`,
      hint: 'lower minApprovals, or list more approvers (or a group: of the worker configuration)',
    });
  }
  return problems;
}
