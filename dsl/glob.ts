// Name patterns of a foreach's `targets` (dsl/targets.ts): globs where `*` matches any run of
// characters (none included) and `?` exactly one; `\*`, `\?` and `\\` match `*`, `?` and `\`
// themselves (escapeGlob writes a name so); every other character (a `\` before any other one
// too) matches itself, and the whole name must match. A pattern becomes a CEL condition over a name: `==`, `startsWith`,
// `endsWith` where that says it, else `matches` with an anchored RE2 expression (linear time, see
// patterns.ts). Values a `${{ … }}` gives inside a pattern are matched literally: an input holding
// `*` selects the services named with a `*`, not every service. Pure: used when normalising.
import { parseTemplate } from './templates';

/** Longest name pattern: service names are short, and a pattern longer than any name is a mistake. */
export const MAX_GLOB_LENGTH = 200;

export const GLOB_WILDCARDS = ['*', '?'] as const;

/** One piece of a pattern: text as written (wildcards active) or a template's value (literal). */
export type GlobPart = { kind: 'text'; text: string } | { kind: 'value'; expression: string };

/** Why a pattern as written cannot be used, or undefined. Templates are checked elsewhere. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'the pattern is empty; leave `name` out to select every name';
  if (pattern.length > MAX_GLOB_LENGTH) return `the pattern is longer than ${MAX_GLOB_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return 'the pattern holds a control character (a line break?)';
  return undefined;
}

/** The pattern split into text and template values (throws for a malformed `${{`). */
export function globParts(pattern: string): GlobPart[] {
  return parseTemplate(pattern).parts.map((part) =>
    part.kind === 'text' ? part : { kind: 'value', expression: part.expression },
  );
}

/** One unit of written text: a wildcard, or a character that matches itself. */
type GlobToken = { wildcard: '*' | '?' } | { char: string };

/** Written text as wildcards and characters, escapes resolved. */
function globTokens(text: string): GlobToken[] {
  const chars = [...text];
  const tokens: GlobToken[] = [];
  for (let at = 0; at < chars.length; at += 1) {
    const char = chars[at]!;
    const next = chars[at + 1];
    if (char === '\\' && (next === '*' || next === '?' || next === '\\')) {
      tokens.push({ char: next });
      at += 1;
    } else if (char === '*' || char === '?') tokens.push({ wildcard: char });
    else tokens.push({ char });
  }
  return tokens;
}

/** A pattern that matches exactly `name`: its wildcards and backslashes escaped. */
export function escapeGlob(name: string): string {
  return name.replace(/[\\*?]/g, (special) => `\\${special}`);
}

/** Tests a literal pattern (no templates) against a name, the way the generated CEL does. */
export function globMatches(pattern: string, name: string): boolean {
  // Dynamic programming over pattern × name: linear memory, no backtracking.
  const target = [...name];
  let previous = new Array<boolean>(target.length + 1).fill(false);
  previous[0] = true;
  for (const token of globTokens(pattern)) {
    const star = 'wildcard' in token && token.wildcard === '*';
    const current = new Array<boolean>(target.length + 1).fill(false);
    if (star) current[0] = previous[0]!;
    for (let at = 1; at <= target.length; at += 1) {
      if (star) current[at] = previous[at]! || current[at - 1]!;
      else current[at] = previous[at - 1]! && ('wildcard' in token || token.char === target[at - 1]);
    }
    previous = current;
  }
  return previous[target.length]!;
}

/** A CEL string literal (JSON's escapes are CEL's too). */
export function celString(text: string): string {
  return JSON.stringify(text);
}

const RE2_SPECIAL = /[\\.+*?()|[\]{}^$]/g;

/** RE2 source of written text: wildcards become `.*` and `.`, the rest is quoted. */
function textRegex(text: string): string {
  let out = '';
  for (const token of globTokens(text)) {
    if ('wildcard' in token) out += token.wildcard === '*' ? '.*' : '.';
    else out += token.char.replace(RE2_SPECIAL, (special) => `\\${special}`);
  }
  return out;
}

/** The characters written text matches, escapes resolved (for text with no wildcard). */
function unescaped(text: string): string {
  return globTokens(text)
    .map((token) => ('char' in token ? token.char : token.wildcard))
    .join('');
}

/** CEL giving the RE2-quoted text of a value (`\Q…\E`, with any `\E` inside it split out). */
function quotedValue(expression: string): string {
  return `${celString('\\Q')} + string(${expression}).split(${celString('\\E')}).join(${celString('\\E\\\\E\\Q')}) + ${celString('\\E')}`;
}

/** How a pattern is tested against a name: what to compare with, computed once per run. */
export interface GlobTest {
  /** CEL for the operand (a string): computed once, before the services are filtered. */
  operand: string;
  /** The condition, given CEL for the name and for the operand (or what holds it). */
  test: (name: string, operand: string) => string;
}

const hasWildcard = (text: string) => globTokens(text).some((token) => 'wildcard' in token);

/**
 * The test of a pattern: a pattern without wildcards compares equal, one whose only wildcard is a
 * final `*` compares the start, one whose only wildcard is a leading `*` (and no templates) the
 * end; everything else matches an anchored RE2 expression.
 */
export function globTest(pattern: string): GlobTest {
  const parts = globParts(pattern);
  const texts = parts.filter((part): part is Extract<GlobPart, { kind: 'text' }> => part.kind === 'text');
  const last = parts.at(-1);
  if (!texts.some((part) => hasWildcard(part.text))) {
    return { operand: concat(parts.map(literal)), test: (name, operand) => `${name} == ${operand}` };
  }
  const lastTokens = last?.kind === 'text' ? globTokens(last.text) : [];
  const final = lastTokens.at(-1);
  if (last?.kind === 'text' && final !== undefined && 'wildcard' in final && final.wildcard === '*') {
    const head: GlobPart[] = [...parts.slice(0, -1), { kind: 'text', text: last.text.slice(0, -1) }];
    if (!head.some((part) => part.kind === 'text' && hasWildcard(part.text))) {
      return {
        operand: concat(head.map(literal)),
        test: (name, operand) => `${name}.startsWith(${operand})`,
      };
    }
  }
  const first = parts[0];
  const firstText = first?.kind === 'text' ? first.text : '';
  const firstTokens = globTokens(firstText);
  const rest = firstTokens.slice(1);
  if (
    parts.length === 1 &&
    first?.kind === 'text' &&
    firstTokens[0] !== undefined &&
    'wildcard' in firstTokens[0] &&
    firstTokens[0].wildcard === '*' &&
    rest.length > 0 &&
    rest.every((token) => 'char' in token)
  ) {
    return {
      operand: celString(unescaped(firstText.slice(1))),
      test: (name, operand) => `${name}.endsWith(${operand})`,
    };
  }
  const regex: Piece[] = parts.map((part) =>
    part.kind === 'text' ? { text: textRegex(part.text) } : { cel: quotedValue(part.expression) },
  );
  return {
    operand: concat([{ text: '^' }, ...regex, { text: '$' }]),
    test: (name, operand) => `${name}.matches(${operand})`,
  };
}

/** A piece of a CEL string: known text, or CEL giving a string. */
type Piece = { text: string } | { cel: string };

const literal = (part: GlobPart): Piece =>
  part.kind === 'text' ? { text: unescaped(part.text) } : { cel: `string(${part.expression})` };

/** CEL concatenating pieces, adjacent texts merged into one literal. */
function concat(pieces: Piece[]): string {
  const merged: Piece[] = [];
  for (const piece of pieces) {
    const previous = merged.at(-1);
    if ('text' in piece && previous !== undefined && 'text' in previous) {
      merged[merged.length - 1] = { text: previous.text + piece.text };
    } else merged.push(piece);
  }
  const cel = merged
    .filter((piece) => !('text' in piece) || piece.text !== '' || merged.length === 1)
    .map((piece) => ('text' in piece ? celString(piece.text) : piece.cel));
  return cel.length === 0 ? celString('') : cel.join(' + ');
}
