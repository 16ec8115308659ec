// An event as a Slack-compatible incoming webhook shows it: one `text` in Slack's mrkdwn, with the
// commands that answer it as code and a link to the run in the Web UI.
import type { NotificationPayload } from '../contract/notification-messages';
import type { NotificationEvent } from '../dsl/notify-subscriptions';
import { assertNever } from '../cloud/assert-never';
import { printableDeep } from '../cloud/printable';

function headline(payload: NotificationPayload): string {
  const run = `\`${payload.runbook}\` run \`${payload.workflowId}\``;
  const event: NotificationEvent = payload.event;
  switch (event) {
    case 'started':
      return `:arrow_forward: ${run} started`;
    case 'awaiting-approval':
      return `:raised_hand: ${run} waits for approval at step \`${payload.step ?? ''}\``;
    case 'awaiting-window':
      return `:hourglass: ${run} waits for its change window at step \`${payload.step ?? ''}\``;
    case 'held':
      return `:warning: ${run} is held at failed step \`${payload.step ?? ''}\``;
    case 'compensated':
      return `:leftwards_arrow_with_hook: ${run} undid what it had done`;
    case 'failed':
      return `:x: ${run} failed${payload.step ? ` at step \`${payload.step}\`` : ''}`;
    case 'cancelled':
      return `:no_entry_sign: ${run} was cancelled`;
    case 'succeeded':
      return `:white_check_mark: ${run} succeeded`;
    default:
      return assertNever(event);
  }
}

export function slackMessage(raw: NotificationPayload): { text: string } {
  // Names, step keys and messages are outside text; a chat client shows control characters too.
  const payload = printableDeep(raw);
  const lines = [headline(payload)];
  if (payload.message !== undefined) {
    const code = payload.errorType !== undefined ? `${payload.errorType}: ` : '';
    lines.push(`> ${code}${payload.message}`);
  }
  for (const [answer, command] of Object.entries(payload.commands ?? {}))
    lines.push(`${answer}: \`${command}\``);
  if (payload.webUiUrl !== undefined) lines.push(`<${payload.webUiUrl}|Open in the Web UI>`);
  return { text: lines.join('\n') };
}
