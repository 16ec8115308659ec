// What a window decision tells a person: whether the calendar lets the change happen now, until
// or from when (in the calendar's own time zone), and what happens to the change meanwhile.
import type { CalendarState, CompiledCalendar } from './calendars';
import type { WindowRule } from './policy-schema';
import { formatZoned } from './zoned-time';

function at(calendar: CompiledCalendar, ms: number): string {
  return `${formatZoned(calendar.timezone, ms)} (${calendar.timezone})`;
}

function stateText(calendar: CompiledCalendar, state: CalendarState): string {
  const name = calendar.name;
  if (calendar.kind === 'window') {
    if (state.open)
      return state.closesAt === null
        ? `inside window ${name}, which stays open for at least two years`
        : `inside window ${name} until ${at(calendar, state.closesAt)}`;
    return state.opensAt === null
      ? `outside window ${name}, which does not open within two years`
      : `outside window ${name}, which opens ${at(calendar, state.opensAt)}`;
  }
  if (state.open)
    return state.closesAt === null
      ? `freeze ${name} is not in force`
      : `freeze ${name} is not in force; it begins ${at(calendar, state.closesAt)}`;
  return state.opensAt === null
    ? `freeze ${name} is in force for at least two years`
    : `freeze ${name} is in force until ${at(calendar, state.opensAt)}`;
}

/** The message of a window rule's decision; `given` is the rule's own message or description. */
export function windowMessage(
  rule: WindowRule,
  calendar: CompiledCalendar,
  state: CalendarState,
  given: string | undefined,
): string {
  let text = stateText(calendar, state);
  if (!state.open) {
    text +=
      rule.outside === 'wait' && state.opensAt !== null ? ': the change waits' : ': the change is refused';
    if (rule.override)
      text += ` (unless ${rule.override.count} approval${rule.override.count === 1 ? '' : 's'} from group:${rule.override.group} let it through)`;
  }
  return given === undefined ? text : `${given}: ${text}`;
}
