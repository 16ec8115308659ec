// Reads a YAML file the way every tideline file is read: bounded in size, nesting and alias
// expansion, with a position for every node, so a later check can say file:line:column. Problems
// found while reading (unreadable, not YAML, too deep) come back with their positions.
import { LineCounter, parseDocument, type Document } from 'yaml';
import { PositionIndex } from './positions';
import type { SourcePosition } from './problems';
import { readSourceFile } from './source-file';
import { limitAliases, limitNesting } from './yaml-limits';

export interface YamlReadProblem {
  kind: 'unreadable' | 'yaml';
  message: string;
  at: SourcePosition;
  hint?: string;
}

export type YamlRead =
  | { ok: true; value: unknown; positions: PositionIndex; document: Document }
  | { ok: false; problems: YamlReadProblem[] };

/** `what` names the file in messages: "state file not found". */
export function readYamlDocument(absolutePath: string, what: string): YamlRead {
  const read = readSourceFile(absolutePath, what);
  const start = { line: 1, column: 1 };
  if (read.kind !== 'text') {
    const message = read.kind === 'missing' ? `${what} not found` : `${what} ${read.reason}`;
    return { ok: false, problems: [{ kind: 'unreadable', message, at: start }] };
  }
  return parseYamlText(read.text);
}

/** The same reading, of text already in hand. */
export function parseYamlText(text: string): YamlRead {
  const lines = new LineCounter();
  const nesting = limitNesting(text);
  const document = parseDocument(nesting.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const offsetAt = (offset: number): SourcePosition => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  const problems: YamlReadProblem[] = [
    ...nesting.hits.map((hit) => ({
      kind: 'yaml' as const,
      message: hit.message,
      at: offsetAt(hit.offset),
      ...(hit.hint !== undefined && { hint: hit.hint }),
    })),
    ...document.errors.map((error) => ({
      kind: 'yaml' as const,
      message: `YAML: ${error.message.split('\n')[0] ?? error.message}`,
      at: offsetAt(error.pos[0]),
    })),
  ];
  if (problems.length === 0)
    problems.push(
      ...limitAliases(document).map((hit) => ({
        kind: 'yaml' as const,
        message: hit.message,
        at: offsetAt(hit.offset),
      })),
    );
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: document.toJS({ maxAliasCount: -1 }),
    positions: new PositionIndex(document, lines),
    document,
  };
}
