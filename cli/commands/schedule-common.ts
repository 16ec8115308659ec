// Shared pieces of `tideline schedule …`: schedule names, the memo tideline keeps on a schedule,
// overlap policy names, and Temporal's schedule errors as CLI errors.
import type { ScheduleOverlapPolicy } from '@temporalio/client';
import type { CommandSpec } from '../args';
import { CliError } from '../errors';
import { cliCommand } from '../output/run-report';
import type { TemporalTarget } from '../temporal';

/** What tideline records on a schedule (the memo travels encrypted, like every payload). */
export interface ScheduleMemo {
  runbook: string;
  /** The runbook file as given to `schedule create` (the schedule is pinned to its content then). */
  file: string;
  /** Names of inputs declared secret (their values are never printed). */
  secretInputs: string[];
  /** The timing as given (Temporal describes a cron expression as calendar ranges). */
  cron?: string;
  every?: string;
  timezone?: string;
}

export const MEMO_KEY = 'tideline';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function checkScheduleName(name: string): string {
  if (!NAME.test(name)) {
    throw new CliError(
      'CLI_USAGE',
      `invalid schedule name "${name.length > 40 ? `${name.slice(0, 40)}…` : name}"`,
      'use letters, digits, ".", "_" and "-" (up to 200 characters), starting with a letter or digit',
    );
  }
  return name;
}

/** The CLI's overlap names ↔ Temporal's policies. */
export const OVERLAP_POLICIES = {
  skip: 'SKIP',
  buffer: 'BUFFER_ONE',
  cancel: 'CANCEL_OTHER',
} as const satisfies Record<string, ScheduleOverlapPolicy>;
export type OverlapName = keyof typeof OVERLAP_POLICIES;

export function overlapName(policy: string | undefined): string {
  const found = Object.entries(OVERLAP_POLICIES).find(([, value]) => value === policy);
  return found ? found[0] : (policy ?? 'skip').toLowerCase();
}

export function memoOf(memo: Record<string, unknown> | undefined): ScheduleMemo | undefined {
  const value = memo?.[MEMO_KEY];
  if (value === null || typeof value !== 'object') return undefined;
  const candidate = value as Partial<ScheduleMemo>;
  if (typeof candidate.runbook !== 'string') return undefined;
  return {
    runbook: candidate.runbook,
    file: typeof candidate.file === 'string' ? candidate.file : '',
    secretInputs: Array.isArray(candidate.secretInputs)
      ? candidate.secretInputs.filter((n) => typeof n === 'string')
      : [],
    ...(typeof candidate.cron === 'string' ? { cron: candidate.cron } : {}),
    ...(typeof candidate.every === 'string' ? { every: candidate.every } : {}),
    ...(typeof candidate.timezone === 'string' ? { timezone: candidate.timezone } : {}),
  };
}

function chain(error: unknown): unknown[] {
  const links: unknown[] = [];
  for (
    let link = error;
    link !== undefined && link !== null && links.length < 6;
    link = (link as { cause?: unknown }).cause
  ) {
    links.push(link);
  }
  return links;
}

/** Hints name the command as the CLI was started; the flags given are the user's to repeat. */
const NO_FLAGS = { globals: { json: false } };

/** Schedule-specific failures as CliErrors; undefined for anything else. */
export function explainScheduleError(
  error: unknown,
  name: string,
  target: TemporalTarget,
): CliError | undefined {
  for (const link of chain(error)) {
    const linkName = (link as { name?: unknown }).name;
    if (linkName === 'ScheduleNotFoundError') {
      return new CliError(
        'SCHEDULE_NOT_FOUND',
        `no schedule named "${name}" in namespace "${target.namespace}" at ${target.address}`,
        `\`${cliCommand(NO_FLAGS, ['schedule', 'list'])}\` shows the schedules`,
      );
    }
    if (linkName === 'ScheduleAlreadyRunning') {
      return new CliError(
        'CLI_USAGE',
        `a schedule named "${name}" already exists`,
        `choose another name, add --replace to replace it, or \`${cliCommand(NO_FLAGS, ['schedule', 'delete', name])}\` it first`,
      );
    }
    // gRPC INVALID_ARGUMENT: the server refused the spec (a cron expression it cannot parse, …).
    if ((link as { code?: unknown }).code === 3) {
      const details = (link as { details?: unknown }).details;
      const reason = typeof details === 'string' && details !== '' ? details : (link as Error).message;
      return new CliError(
        'CLI_USAGE',
        `Temporal refused the schedule: ${reason}`,
        'check --cron, --every, --timezone and --catchup',
      );
    }
  }
  return undefined;
}

/** `tideline schedule SUB` spec with the shared positional: NAME. */
export function namedSpec<O extends CommandSpec['options']>(
  sub: string,
  summary: string,
  options: O,
  optionHelp: [string, string][],
  examples: string[],
  description?: string[],
): CommandSpec<O> {
  return {
    name: `schedule ${sub}`,
    usage: `NAME${optionHelp.length > 0 ? ' [options]' : ''}`,
    summary,
    ...(description ? { description } : {}),
    options,
    optionHelp,
    examples,
    positionals: { min: 1, max: 1, names: 'the schedule NAME' },
  };
}
