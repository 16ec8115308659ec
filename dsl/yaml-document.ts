// Reads a YAML file the way every tideline file is read: bounded in size, nesting and alias
// expansion, with a position for every node, so a later check can say file:line:column. Problems
// found while reading (unreadable, not YAML, too deep) come back with their positions.
import { LineCounter, parseDocument, type Document } from 'yaml';
import { PositionIndex } from './positions';
import type { ProblemPath, SourcePosition } from './problems';
import type { z } from 'zod';
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

/**
 * A schema's issues where the file says them: each at its value, an unknown field at its key,
 * with the field's path before the message (`rules.0.expect: …`).
 */
export function schemaIssuesAt(
  issues: readonly z.core.$ZodIssue[],
  positions: PositionIndex,
): { message: string; at: SourcePosition }[] {
  return issues.map((issue) => {
    const path: ProblemPath = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
    const unknownKeys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const at =
      unknownKeys.length > 0
        ? positions.locate([...path, unknownKeys[0] ?? ''], 'key')
        : positions.locate(path);
    const field = path.length > 0 ? `${path.join('.')}: ` : '';
    return { message: `${field}${issue.message}`, at };
  });
}

/** A problem of one file, at a position in it, with a stable code and an optional hint. */
export interface FileProblem<Code extends string> {
  code: Code;
  file: string;
  line: number;
  column: number;
  message: string;
  hint?: string;
}

/** Makes the problems of `file` (at its start when no position is given). */
export function problemsOf<Code extends string>(file: string) {
  return (
    code: Code,
    message: string,
    at: SourcePosition = { line: 1, column: 1 },
    hint?: string,
  ): FileProblem<Code> => ({
    code,
    file,
    ...at,
    message,
    ...(hint !== undefined ? { hint } : {}),
  });
}
