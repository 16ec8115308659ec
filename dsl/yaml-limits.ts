// Limits on what YAML can make the loader do, checked before the document is built or converted:
// nesting depth (the YAML library recurses per level, so 2,000 levels overflow the stack) and
// alias expansion (a "billion laughs" document). A part over a limit is reported at its position
// and replaced by null, so the rest of the file is still checked and every other problem found.
import type { Document } from 'yaml';
import { CST, isAlias, Lexer, Scalar, visit } from 'yaml';

/** Deeper nesting than this is refused; real runbooks stay far below. */
export const MAX_YAML_DEPTH = 100;
/** How many nodes all aliases together may expand to. */
export const MAX_ALIAS_EXPANSION = 100_000;

export interface LimitHit {
  /** Offset in the text. */
  offset: number;
  message: string;
  hint: string;
}

/** Tokens the lexer emits that are not part of the source text. */
const CONTROL = new Set(['doc-mode', 'flow-error-end', 'scalar']);
const NOT_CONTENT = new Set(['space', 'newline', 'comment', 'doc-mode', 'flow-error-end', 'scalar']);

/** Blanks text[start, end): the first character becomes `~` (null), the rest spaces; newlines stay. */
function blank(text: string, start: number, end: number): string {
  const middle = text.slice(start + 1, end).replace(/[^\n]/g, ' ');
  return `${text.slice(0, start)}~${middle}${text.slice(end)}`;
}

interface DeepRegion {
  start: number;
  end: number;
}

/**
 * Finds parts nested deeper than `maxDepth` (block indentation levels plus open flow brackets),
 * from the token stream alone (the lexer does not recurse). Block depth is counted from the
 * columns where lines and compact `- ` items start, which is close enough for a limit.
 */
function deepRegions(text: string, maxDepth: number): DeepRegion[] {
  const regions: DeepRegion[] = [];
  const stack: number[] = [];
  let flow = 0;
  let offset = 0;
  let lineStart = 0;
  let lineHasContent = false;
  let afterItem = false;
  let open: { start: number; stack: number; flow: number } | undefined;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    const at = offset;
    if (!CONTROL.has(type ?? '')) offset += token.length;
    if (type === 'doc-mode' && at === 0) continue;
    if (NOT_CONTENT.has(type ?? '')) {
      if (type === 'newline') {
        lineStart = offset;
        lineHasContent = false;
        afterItem = false;
      }
      continue;
    }
    const column = at - lineStart;
    if (flow === 0 && !lineHasContent) {
      while (stack.length > 0 && (stack[stack.length - 1] ?? 0) > column) stack.pop();
      if (open && open.flow === 0 && stack.length < open.stack) {
        regions.push({ start: open.start, end: at });
        open = undefined;
      }
      if (stack.length === 0 || (stack[stack.length - 1] ?? 0) < column) stack.push(column);
    } else if (flow === 0 && afterItem && (stack[stack.length - 1] ?? 0) < column) {
      stack.push(column);
    }
    lineHasContent = true;
    afterItem = type === 'seq-item-ind' || type === 'explicit-key-ind';
    if (type === 'flow-seq-start' || type === 'flow-map-start') flow++;
    if (!open && stack.length + flow > maxDepth) open = { start: at, stack: stack.length, flow };
    if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flow = Math.max(0, flow - 1);
      if (open && open.flow > 0 && flow < open.flow) {
        regions.push({ start: open.start, end: offset });
        open = undefined;
      }
    }
    // A multi-line token (quoted or plain scalar, block scalar) moves the line start.
    const newline = token.lastIndexOf('\n');
    if (newline !== -1 && type !== 'newline') lineStart = at + newline + 1;
  }
  if (open) regions.push({ start: open.start, end: text.length });
  return regions;
}

/** Text with every part nested deeper than `maxDepth` replaced by null, and where each was. */
export function limitNesting(text: string, maxDepth = MAX_YAML_DEPTH): { text: string; hits: LimitHit[] } {
  const regions = deepRegions(text, maxDepth);
  let limited = text;
  for (const region of regions) limited = blank(limited, region.start, region.end);
  return {
    text: limited,
    hits: regions.map((region) => ({
      offset: region.start,
      message: `YAML nested deeper than ${maxDepth} levels (the limit); this part is not checked`,
      hint: 'flatten the structure; a runbook never needs this depth',
    })),
  };
}

/**
 * Replaces aliases by null once, together, they would expand to more than `maxNodes` nodes; the
 * first such alias is reported. The document is changed in place.
 */
export function limitAliases(document: Document, maxNodes = MAX_ALIAS_EXPANSION): LimitHit[] {
  const sizes = new Map<unknown, number>();
  const sizeOf = (node: unknown): number => {
    if (node === null || typeof node !== 'object') return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    sizes.set(node, 1); // an alias to its own ancestor counts once
    let size = 1;
    if (isAlias(node)) size = sizeOf(node.resolve(document));
    else {
      const items = (node as { items?: unknown[] }).items;
      if (Array.isArray(items)) {
        for (const item of items) {
          const pair = item as { key?: unknown; value?: unknown };
          size += 'key' in (item as object) ? sizeOf(pair.key) + sizeOf(pair.value) : sizeOf(item);
          if (size > maxNodes) break;
        }
      }
    }
    sizes.set(node, size);
    return size;
  };
  const hits: LimitHit[] = [];
  let expanded = 0;
  visit(document, {
    Alias(_, node) {
      const size = sizeOf(node);
      if (expanded + size <= maxNodes) {
        expanded += size;
        return undefined;
      }
      if (hits.length === 0) {
        hits.push({
          offset: node.range?.[0] ?? 0,
          message: `YAML aliases expand to more than ${maxNodes} nodes (the limit); \`*${node.source}\` and later aliases over it are not checked`,
          hint: 'use fewer or smaller aliases (anchors are copied wherever they are used)',
        });
      }
      return new Scalar(null);
    },
  });
  return hits;
}
