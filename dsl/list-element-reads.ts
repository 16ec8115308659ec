// What expressions read of the elements of one list in the scope — e.g. of a foreach's output
// `steps.stop_each.output`, a list with one `{<body step id>: <its output>}` per item. A fleet-sized
// foreach runs in batch children whose answers are stored in the run's history; knowing that later
// steps read only `r.paused.service_id` of each element lets a batch answer carry just that
// (workflows/foreach-batch.ts), so history stays linear in the fleet instead of storing every
// iteration's outputs twice. Conservative: any use the walk does not understand reads the whole
// list. Pure and deterministic: used inside the workflow sandbox.
import type { ASTNode } from '@marcbachmann/cel-js';
import type { RunbookDefinition } from './definition';
import { parseExpression } from './expressions';
import { forEachDefinitionExpression } from './output-reads';

/** Per element field (a body step id), the sub-fields read of it, or 'whole'. */
export type ElementFieldReads = Map<string, Set<string> | 'whole'>;
/** What is read of each element of the list: some fields, or everything. */
export type ElementReads = ElementFieldReads | 'whole';

/** Macros that bind their first argument to each element of their receiver. */
const ELEMENT_MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

interface Chain {
  root: string;
  /** Static fields and constant indexes; `undefined` entries are dynamic indexes. */
  path: Array<string | undefined>;
  indexes: ASTNode[];
}

function chainOf(node: ASTNode): Chain | undefined {
  switch (node.op) {
    case 'id':
      return { root: node.args, path: [], indexes: [] };
    case '.':
    case '.?': {
      const inner = chainOf(node.args[0]);
      if (inner) inner.path.push(node.args[1]);
      return inner;
    }
    case '[]':
    case '[?]': {
      const inner = chainOf(node.args[0]);
      if (!inner) return undefined;
      const index = node.args[1];
      const constant =
        index.op === 'value' &&
        (typeof index.args === 'string' || typeof index.args === 'bigint' || typeof index.args === 'number');
      inner.path.push(constant ? String(index.args) : undefined);
      if (!constant) inner.indexes.push(index);
      return inner;
    }
    default:
      return undefined;
  }
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** Adds that `path` (from an element) is read: its first field, and that field's first sub-field. */
function addElementPath(reads: ElementFieldReads, path: Array<string | undefined>): boolean {
  const [field, sub] = path;
  if (field === undefined) return false;
  const current = reads.get(field);
  if (current === 'whole') return true;
  if (sub === undefined || path.length < 2) reads.set(field, 'whole');
  else if (current === undefined) reads.set(field, new Set([sub]));
  else current.add(sub);
  return true;
}

/**
 * What one expression reads of the elements of the list at `root.path…` (free variable `root`).
 * Understood: element macros over the list (or over a `filter` of it) and constant indexes; the
 * element variable read through static fields. Anything else that touches the list is 'whole'.
 */
export function elementReads(expression: string, root: string, listPath: string[]): ElementReads {
  const reads: ElementFieldReads = new Map();
  let whole = false;

  /** How a chain relates to the list: elsewhere, the list itself, inside it, or above it. */
  const listPrefix = (chain: Chain): 'unrelated' | 'list' | 'inside' | 'above' => {
    if (chain.root !== root) return 'unrelated';
    for (let i = 0; i < listPath.length; i++) {
      if (i >= chain.path.length) return 'above';
      const part = chain.path[i];
      if (part === undefined) return 'above'; // a dynamic index that may select the list
      if (part !== listPath[i]) return 'unrelated';
    }
    return chain.path.length === listPath.length ? 'list' : 'inside';
  };

  /** Is this node the list itself, or a `filter` of it (a list of its elements)? */
  const yieldsElements = (node: ASTNode, bound: ReadonlySet<string>): boolean => {
    const chain = chainOf(node);
    if (chain) return !bound.has(chain.root) && listPrefix(chain) === 'list';
    if (node.op !== 'rcall') return false;
    const [name, receiver, args] = node.args;
    return name === 'filter' && args[0]?.op === 'id' && yieldsElements(receiver, bound);
  };

  const visitAll = (value: unknown, elements: ReadonlySet<string>, bound: ReadonlySet<string>): void => {
    if (isNode(value)) visit(value, elements, bound);
    else if (Array.isArray(value)) for (const inner of value) visitAll(inner, elements, bound);
  };

  const visit = (node: ASTNode, elements: ReadonlySet<string>, bound: ReadonlySet<string>): void => {
    if (whole) return;
    const chain = chainOf(node);
    if (chain) {
      for (const index of chain.indexes) visit(index, elements, bound);
      if (elements.has(chain.root)) {
        if (!addElementPath(reads, chain.path)) whole = true;
        return;
      }
      if (bound.has(chain.root)) return;
      const relation = listPrefix(chain);
      if (relation === 'list' || relation === 'above') whole = true;
      else if (relation === 'inside') {
        // `list[0].paused.service_id`: an element, then its fields.
        const afterIndex = chain.path.slice(listPath.length + 1);
        if (!addElementPath(reads, afterIndex)) whole = true;
      }
      return;
    }
    if (node.op === 'rcall') {
      const [name, receiver, args] = node.args;
      const first = args[0];
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && first?.op === 'id') {
        if (args[1]) visit(args[1], elements, bound);
        // A name bound to anything is not an element (nor the list) inside the body.
        const rebound = new Set(elements);
        rebound.delete(first.args);
        if (args[2]) visit(args[2], rebound, new Set([...bound, first.args]));
        return;
      }
      if (ELEMENT_MACROS.has(name) && first?.op === 'id') {
        const overElements = yieldsElements(receiver, bound);
        if (overElements) {
          // The receiver's own filter conditions are visited through it (not as a whole read).
          if (receiver.op === 'rcall') visit(receiver, elements, bound);
        } else visit(receiver, elements, bound);
        const inner = new Set(elements);
        if (overElements) inner.add(first.args);
        else inner.delete(first.args);
        for (const arg of args.slice(1)) visit(arg, inner, new Set([...bound, first.args]));
        return;
      }
      visit(receiver, elements, bound);
      visitAll(args, elements, bound);
      return;
    }
    if (node.op === 'value') return;
    visitAll(node.args, elements, bound);
  };

  visit(parseExpression(expression), new Set(), new Set());
  return whole ? 'whole' : reads;
}

/** Merges what `more` reads into `into` ('whole' absorbs everything). */
export function mergeElementReads(into: ElementReads, more: ElementReads): ElementReads {
  if (into === 'whole' || more === 'whole') return 'whole';
  for (const [field, subs] of more) {
    const current = into.get(field);
    if (current === 'whole') continue;
    if (subs === 'whole') into.set(field, 'whole');
    else if (current === undefined) into.set(field, new Set(subs));
    else for (const sub of subs) current.add(sub);
  }
  return into;
}

/**
 * What a runbook reads of each element of the output of its foreach step `id`, anywhere in its
 * steps (nested and compensation steps too) and outputs.
 */
export function foreachOutputReads(
  definition: Pick<RunbookDefinition, 'steps' | 'outputs'>,
  id: string,
): ElementReads {
  let reads: ElementReads = new Map();
  forEachDefinitionExpression(definition, (expression) => {
    if (reads !== 'whole')
      reads = mergeElementReads(reads, elementReads(expression, 'steps', [id, 'output']));
  });
  return reads;
}
