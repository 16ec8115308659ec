// How a run shows itself in Temporal's visibility store and Web UI: its search attributes
// (TidelineRunbook, TidelineProject, TidelineServices, TidelineState, TidelineAwaitingApproval;
// contract/search-attributes.ts)
// and its current details (what an operator is asked and the exact command to answer).
//
// Upserts are commands in the history, so they are guarded by the `runVisibility` patch: a run
// started before it replays without them. Each upsert only sends what changed, and only when it
// changed: one at start, one per state change, one per newly named service until the cap.
//
// Search attribute values are NOT encrypted by the payload codec: only the runbook name, the
// project id, service ids and a state word go there, never an input value marked secret.
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { approvalCommands, holdCommands } from './answer-commands';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { RunState } from './run-state';
import {
  AWAITING_APPROVAL_ATTRIBUTE,
  PROJECT_ATTRIBUTE,
  RUNBOOK_ATTRIBUTE,
  SERVICES_ATTRIBUTE,
  STATE_ATTRIBUTE,
} from '../contract/search-attributes';

/** TidelineState's values: the run's status, with `running` split by what it waits for. */
export type VisibleState =
  'running' | 'waiting-for-approval' | 'held' | 'compensating' | 'succeeded' | 'failed' | 'cancelled';

/**
 * TidelineServices keeps the first 100 services a run names or creates. Temporal refuses a search
 * attribute value over 2 KB by default (`limit.searchAttributesSizeOfValue`), and a refused upsert
 * fails the workflow task forever, so the list also stops at 1,500 characters of ids. A fleet run
 * over more services lists the first ones; its step records still name every service.
 */
export const MAX_LISTED_SERVICES = 100;
export const MAX_LISTED_SERVICE_CHARS = 1_500;

export function visibleState(state: RunState): VisibleState {
  const status = state.status;
  if (status === 'compensating' || status === 'succeeded' || status === 'failed' || status === 'cancelled')
    return status;
  if (state.holds?.open === true) return 'held';
  return state.pendingApproval() !== undefined ? 'waiting-for-approval' : 'running';
}

/** What the Web UI shows as the run's current details (Markdown): the question and its answers. */
export function currentDetails(state: RunState): string {
  const approval = state.pendingApproval();
  const held = state.status === 'running' ? (state.holds?.list() ?? []) : [];
  if (held.length > 0) {
    return held
      .map((held) => {
        const commands = holdCommands(held.stepKey);
        return [
          `**Held** at step \`${held.stepKey}\`: ${held.error.type}: ${held.error.message}`,
          // A blank line before the list: the Web UI's Markdown runs a list on from a paragraph.
          '',
          `- retry: \`${commands.retry}\``,
          `- skip: \`${commands.skip}\``,
          `- roll back: \`${commands.rollback}\``,
          `- rolls back on its own at ${new Date(held.deadline).toISOString()}`,
        ].join('\n');
      })
      .join('\n\n');
  }
  if (approval !== undefined) {
    const when =
      approval.deadline > 0
        ? `\n- without an answer by ${new Date(approval.deadline).toISOString()}: ${approval.default}`
        : '';
    const commands = approvalCommands(approval.stepKey);
    return (
      [
        `**Waiting for approval** at step \`${approval.stepKey}\`: ${approval.message}`,
        '',
        `- approve: \`${commands.approve}\``,
        `- reject: \`${commands.reject}\``,
      ].join('\n') + when
    );
  }
  return '';
}

/** Who may answer the run's pending approvals that name approvers, sorted, each once. */
export function awaitingApprovers(state: RunState): string[] {
  const names = new Set(state.pendingApprovals().flatMap((approval) => approval.approvers ?? []));
  return [...names].sort();
}

export class RunVisibility {
  private readonly services: string[] = [];
  private serviceChars = 0;
  private upsertedServices = 0;
  private upsertedState: VisibleState | undefined;
  /** TidelineAwaitingApproval as last upserted; undefined until an approval with approvers opened. */
  private upsertedApprovers: string | undefined;
  private details = '';
  private syncScheduled = false;

  /** `upserts`: whether this run keeps search attributes (the runVisibility patch). */
  constructor(private readonly upserts: boolean) {}

  /** The run's identity, set once at start with its first state. */
  start(state: RunState, project: string | undefined, services: readonly string[]): void {
    for (const id of services) this.addService(id);
    const pairs: SearchAttributeUpdatePair[] = [{ key: RUNBOOK_ATTRIBUTE, value: state.runbook }];
    if (project !== undefined) pairs.push({ key: PROJECT_ATTRIBUTE, value: project });
    this.sync(state, pairs);
  }

  /** Notes services the run names (the first ones up to the cap); `sync` publishes them. */
  addService(id: string): void {
    if (this.services.includes(id) || this.services.length >= MAX_LISTED_SERVICES) return;
    if (this.serviceChars + id.length + 3 > MAX_LISTED_SERVICE_CHARS) return;
    this.services.push(id);
    this.serviceChars += id.length + 3; // quotes and comma of the JSON list
  }

  /**
   * Syncs once the current activation's code has run: the services the steps of a foreach name
   * in one workflow task become one upsert, not one each. (A microtask: deterministic, and run
   * before the task's commands are sent.)
   */
  syncSoon(state: RunState): void {
    if (this.syncScheduled) return;
    this.syncScheduled = true;
    void Promise.resolve().then(() => {
      this.syncScheduled = false;
      this.sync(state);
    });
  }

  /** Upserts what changed since the last upsert and refreshes the current details. */
  sync(state: RunState, extra: SearchAttributeUpdatePair[] = []): void {
    const details = currentDetails(state);
    if (details !== this.details) {
      this.details = details;
      setCurrentDetails(details);
    }
    if (!this.upserts) return;
    const pairs = [...extra];
    const visible = visibleState(state);
    if (visible !== this.upsertedState) {
      pairs.push({ key: STATE_ATTRIBUTE, value: visible });
      this.upsertedState = visible;
    }
    if (this.services.length !== this.upsertedServices) {
      pairs.push({ key: SERVICES_ATTRIBUTE, value: [...this.services] });
      this.upsertedServices = this.services.length;
    }
    // Only approvals with `approvers` (format 2) set it: runs of earlier releases never upsert it.
    const approvers = awaitingApprovers(state);
    const key = approvers.join('\n');
    if ((approvers.length > 0 || this.upsertedApprovers !== undefined) && key !== this.upsertedApprovers) {
      pairs.push({ key: AWAITING_APPROVAL_ATTRIBUTE, value: approvers });
      this.upsertedApprovers = key;
    }
    if (pairs.length > 0) upsertSearchAttributes(pairs);
  }
}
