// The lines of `tideline audit` beyond approval decisions: what the worker decided at the start
// (catalogue, starter), what its policies said, and the operators' hold actions. Every name,
// reason and message came from a client or a definition, so each is printed escaped.
import type { Admission } from '../../contract/admission-messages';
import type { PolicyRecord } from '../../contract/policy-messages';
import type { OperatorAction } from '../../contract/run-messages';
import { printable } from '../../cloud/printable';

export function admissionLine(admission: Admission): string {
  const starter = admission.starter;
  const who =
    starter.by === null
      ? 'no starter named'
      : `started by ${printable(starter.by)} (${starter.verified ? `verified${starter.groups.length > 0 ? `; groups ${starter.groups.map(printable).join(', ')}` : ''}` : `unverified: ${printable(starter.reason ?? 'not signed')}`})`;
  const source =
    admission.catalogEntry !== undefined
      ? `catalogue ${printable(admission.catalogEntry.file)}`
      : admission.mode === 'development'
        ? 'ad-hoc (development worker)'
        : 'not in the catalogue';
  const verdict = admission.allowed
    ? 'admitted'
    : `refused ${printable(admission.code ?? '')}: ${printable(admission.reason ?? '')}`;
  return `start: ${verdict}; definition ${admission.definitionHash.slice(0, 12)} (${source}); ${who}`;
}

export function policyLine(record: PolicyRecord): string {
  const where = record.stepKey === null ? 'start' : printable(record.stepKey);
  const window =
    record.effect === 'window'
      ? ` calendar ${printable(record.calendar ?? '')} ${record.open === true ? 'open' : `closed${record.opensAt ? `, opens ${new Date(record.opensAt).toISOString()}` : ''}`}`
      : '';
  const approvals =
    record.group !== undefined ? ` needs ${record.count ?? 1} of group:${printable(record.group)}` : '';
  return `${new Date(record.at).toISOString()} ${where} policy ${printable(record.rule)}: ${record.effect}${window}${approvals}: ${printable(record.message)}`;
}

export function holdActionLine(action: OperatorAction): string {
  const by = action.by === null ? '(no name)' : printable(action.by);
  const signer =
    action.verified === true
      ? ` key ${printable(action.keyId ?? '')}`
      : action.verified === false
        ? ' (unsigned)'
        : '';
  const changed = [
    ...(action.inputs ?? []).map((name) => `input ${printable(name)}`),
    ...(action.with ?? []).map((name) => `with.${printable(name)}`),
  ];
  const verdict =
    action.refused !== undefined
      ? `refused ${printable(action.refused.code)}: ${printable(action.refused.reason)}`
      : 'applied';
  return `${new Date(action.at).toISOString()} ${printable(action.stepKey)} ${action.action} by ${by}${signer}${changed.length > 0 ? ` changing ${changed.join(', ')}` : ''}: ${verdict}`;
}
