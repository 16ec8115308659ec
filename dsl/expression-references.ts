// What an expression refers to: each free variable with the field path read from it, e.g.
// `steps.create.output.service_id` → root `steps`, path [create, output, service_id].
// Variables bound by macros (`xs.exists(x, …)`, `cel.bind(a, …)`) are not free. Pure.
import type { ASTNode } from '@marcbachmann/cel-js';
import { parseExpression } from './expressions';

export interface ExpressionReference {
  /** The free variable, e.g. `inputs`, `steps`, `result`, `item`. */
  root: string;
  /** Fields and constant indexes read from it, as far as they are known statically. */
  path: string[];
  /** Character range of the reference inside the expression. */
  start: number;
  end: number;
}

/** CEL's type names, which read like variables in `type(x) == string`: not free variables of a rule. */
export const CEL_TYPE_NAMES: ReadonlySet<string> = new Set([
  'bool',
  'bytes',
  'double',
  'dyn',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'type',
  'uint',
]);

/** Macros whose first argument names an iteration variable bound in the later arguments. */
const ITERATION_MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

interface AccessChain {
  root: string;
  path: string[];
  /** Index expressions that are not constants; they end the static path and are walked on their own. */
  dynamicIndexes: ASTNode[];
  stopped: boolean;
}

function accessChain(node: ASTNode): AccessChain | undefined {
  switch (node.op) {
    case 'id':
      return { root: node.args, path: [], dynamicIndexes: [], stopped: false };
    case '.':
    case '.?': {
      const inner = accessChain(node.args[0]);
      if (!inner) return undefined;
      if (!inner.stopped) inner.path.push(node.args[1]);
      return inner;
    }
    case '[]':
    case '[?]': {
      const inner = accessChain(node.args[0]);
      if (!inner) return undefined;
      const index = node.args[1];
      const constant =
        index.op === 'value' &&
        (typeof index.args === 'string' || typeof index.args === 'bigint' || typeof index.args === 'number');
      if (constant && !inner.stopped) inner.path.push(String(index.args));
      else {
        inner.stopped = true;
        inner.dynamicIndexes.push(index);
      }
      return inner;
    }
    default:
      return undefined;
  }
}

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

/** The free variables an expression reads; throws ExpressionError when it does not parse. */
export function expressionReferences(expression: string): ExpressionReference[] {
  const references: ExpressionReference[] = [];

  const visitAll = (value: unknown, bound: ReadonlySet<string>): void => {
    if (isNode(value)) visit(value, bound);
    else if (Array.isArray(value)) for (const inner of value) visitAll(inner, bound);
  };

  const visit = (node: ASTNode, bound: ReadonlySet<string>): void => {
    const chain = accessChain(node);
    if (chain) {
      if (!bound.has(chain.root)) {
        references.push({ root: chain.root, path: chain.path, start: node.start, end: node.end });
      }
      for (const index of chain.dynamicIndexes) visit(index, bound);
      return;
    }
    if (node.op === 'rcall') {
      const [name, receiver, args] = node.args;
      const first = args[0];
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && first?.op === 'id') {
        if (args[1]) visit(args[1], bound);
        if (args[2]) visit(args[2], new Set([...bound, first.args]));
        return;
      }
      visit(receiver, bound);
      if (ITERATION_MACROS.has(name) && first?.op === 'id') {
        const inner = new Set([...bound, first.args]);
        for (const arg of args.slice(1)) visit(arg, inner);
        return;
      }
      visitAll(args, bound);
      return;
    }
    if (node.op === 'value') return;
    visitAll(node.args, bound);
  };

  visit(parseExpression(expression), new Set());
  return references;
}
