// `--help` text: usage, description, the command's options, the global options, examples, and
// the documented exit codes. Plain text that reads well in a terminal and in a pager.
import type { CommandSpec } from '../args';
import { GLOBAL_OPTION_HELP } from '../args';
import { wrap } from './style';

export const EXIT_CODE_HELP: [string, string][] = [
  ['0', 'success (the run succeeded, the command did what was asked)'],
  ['1', 'the run failed, was cancelled or rejected; or nothing to approve'],
  [
    '2',
    "bad usage: unknown flag, missing argument, invalid runbook or input; a run's data this CLI cannot decrypt",
  ],
  ['3', 'cannot reach Temporal (or the Cloud API), or no worker answers'],
  ['4', 'not found: no such run or schedule'],
  ['5', 'the run is held at a failed step: retry, skip or roll it back'],
];

function table(rows: [string, string][], indent = '  '): string[] {
  const width = Math.min(28, Math.max(...rows.map(([left]) => left.length)));
  return rows.map(([left, right]) =>
    left.length > width
      ? `${indent}${left}\n${indent}${' '.repeat(width + 2)}${right}`
      : `${indent}${left.padEnd(width)}  ${right}`,
  );
}

/** Help reads well up to this width; longer description lines are wrapped to it. */
const HELP_WIDTH = 100;

/**
 * A description as printed: specs give it either as lines already wrapped (they belong to one
 * paragraph and follow each other) or as one long line per paragraph (wrapped here, with a blank
 * line between paragraphs). An empty element is a paragraph break.
 */
export function descriptionLines(description: string[]): string[] {
  const lines: string[] = [];
  let previousWasParagraph = false;
  for (const element of description) {
    const paragraph = element.length > HELP_WIDTH;
    if (element === '' || ((paragraph || previousWasParagraph) && lines.length > 0)) lines.push('');
    if (element !== '') lines.push(...wrap(element, HELP_WIDTH));
    previousWasParagraph = paragraph;
  }
  return lines;
}

/** A command's help; `summary` is its line in the registry, or a subcommand's own. */
export function renderCommandHelp(spec: CommandSpec, summary: string): string {
  const lines = [
    `tideline ${spec.name} — ${summary}`,
    '',
    `usage: tideline ${spec.name} ${spec.usage}`.trimEnd(),
  ];
  if (spec.description !== undefined && spec.description.length > 0)
    lines.push('', ...descriptionLines(spec.description));
  if (spec.optionHelp.length > 0) lines.push('', 'options:', ...table(spec.optionHelp));
  lines.push('', 'global options:', ...table(GLOBAL_OPTION_HELP));
  if (spec.examples.length > 0)
    lines.push('', 'examples:', ...spec.examples.map((example) => `  ${example}`));
  lines.push('', 'exit codes:', ...table(EXIT_CODE_HELP));
  return `${lines.join('\n')}\n`;
}

export interface CommandSummary {
  name: string;
  summary: string;
}

export function renderMainHelp(commands: CommandSummary[], version: string): string {
  const lines = [
    `tideline ${version} — durable, declarative runbooks for a managed database cloud, on Temporal`,
    '',
    'usage: tideline COMMAND [options]',
    '',
    'commands:',
    ...table(commands.map((c) => [c.name, c.summary])),
    '',
    'global options (before or after the command):',
    ...table([...GLOBAL_OPTION_HELP, ['-V, --version', 'print the version']]),
    '',
    'settings: flags win over environment variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,',
    'TIDELINE_TASK_QUEUE), which win over the config file. Temporal TLS and API keys follow',
    "Temporal's standard TEMPORAL_* variables and profiles. Payloads are encrypted with the keys in",
    'TIDELINE_ENCRYPTION_KEYS or TIDELINE_KEY_FILE (default ~/.tideline/keys.json); use the same keys',
    'as the worker.',
    '',
    'examples:',
    '  tideline validate runbooks/*.yaml',
    '  tideline run runbooks/provision-production-service.yaml -i project_id=p1 -i name=orders -i vpc_id=v1',
    '  tideline list --running',
    '  tideline dev',
    '',
    'exit codes:',
    ...table(EXIT_CODE_HELP),
    '',
    "Run `tideline COMMAND --help` for a command's options and examples. Set TIDELINE_DEBUG=1 to see",
    'stack traces of unexpected errors.',
  ];
  return `${lines.join('\n')}\n`;
}
