// tideline's custom search attributes: how runs are found in Temporal's Web UI, the `temporal`
// CLI and `tideline list`. One list, used by the workflow (upserts), the CLI (queries) and every
// place that registers them on a namespace (dev server flags, `tideline setup`, the native
// cluster, docker-compose). Sandbox-safe: plain data and @temporalio/common only.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const RUNBOOK_ATTRIBUTE = defineSearchAttributeKey('TidelineRunbook', SearchAttributeType.KEYWORD);
export const PROJECT_ATTRIBUTE = defineSearchAttributeKey('TidelineProject', SearchAttributeType.KEYWORD);
export const SERVICES_ATTRIBUTE = defineSearchAttributeKey(
  'TidelineServices',
  SearchAttributeType.KEYWORD_LIST,
);
export const STATE_ATTRIBUTE = defineSearchAttributeKey('TidelineState', SearchAttributeType.KEYWORD);
/** Who may answer the run's pending approvals that name `approvers` (names and `group:NAME`). */
export const AWAITING_APPROVAL_ATTRIBUTE = defineSearchAttributeKey(
  'TidelineAwaitingApproval',
  SearchAttributeType.KEYWORD_LIST,
);

/** Every tideline search attribute with the type name Temporal's CLI and operator API use. */
export const TIDELINE_SEARCH_ATTRIBUTES = [
  { name: RUNBOOK_ATTRIBUTE.name, type: 'Keyword' },
  { name: PROJECT_ATTRIBUTE.name, type: 'Keyword' },
  { name: SERVICES_ATTRIBUTE.name, type: 'KeywordList' },
  { name: STATE_ATTRIBUTE.name, type: 'Keyword' },
  { name: AWAITING_APPROVAL_ATTRIBUTE.name, type: 'KeywordList' },
] as const;
