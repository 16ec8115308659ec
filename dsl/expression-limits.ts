// Bounds on what one CEL expression may cost, checked on the syntax tree before anything runs — by
// the validator and again before every evaluation (the interpreter workflow, wait activities), so
// no expression can hang or exhaust the CLI, the worker or a workflow. The checks read the text
// and the tree only, never the data, so a definition that passed validation always passes here
// and a replayed run decides exactly as the first one did.
//
// Cost is estimated as c·n^d, where n is the size of the data the expression reads: a
// comprehension (`all`, `exists`, `exists_one`, `map`, `filter`) multiplies the cost of its body
// by the size of its range, `map` can multiply sizes, and `+` copies its operands, so
// `cel.bind(a, x + x, …)` nested k times costs 2^k. The estimate at n = 1,000 (a fleet of a thousand) must stay within
// 10^8, which allows nested loops over a fleet but not three levels or exponential growth.
import type { ASTNode } from '@marcbachmann/cel-js';

export const MAX_EXPRESSION_LENGTH = 4000;
export const MAX_EXPRESSION_DEPTH = 48;
export const NOMINAL_DATA_SIZE = 1000;
export const MAX_EXPRESSION_COST = 1e8;

export type ExpressionLimitCode = 'EXPRESSION_TOO_LONG' | 'EXPRESSION_TOO_DEEP' | 'EXPRESSION_TOO_COSTLY';

export interface ExpressionLimitProblem {
  code: ExpressionLimitCode;
  message: string;
}

/** An upper bound c·n^d. */
interface Poly {
  c: number;
  d: number;
}

const ONE: Poly = { c: 1, d: 0 };
const DATA: Poly = { c: 1, d: 1 };
const add = (a: Poly, b: Poly): Poly => ({ c: a.c + b.c, d: Math.max(a.d, b.d) });
const mul = (a: Poly, b: Poly): Poly => ({ c: a.c * b.c, d: a.d + b.d });
const at = (p: Poly, n: number): number => p.c * n ** p.d;

interface Estimate {
  /** How big the value can be. */
  size: Poly;
  /** How much work computing it takes. */
  cost: Poly;
}

const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function isNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

function children(node: ASTNode): ASTNode[] {
  const out: ASTNode[] = [];
  const collect = (value: unknown): void => {
    if (isNode(value)) out.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
  };
  if (node.op !== 'value' && node.op !== 'id') collect(node.args);
  return out;
}

/** Nesting depth of the tree, iteratively (the parser bounds it too, but far higher). */
function depth(root: ASTNode): number {
  let deepest = 0;
  const stack: [ASTNode, number][] = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, level] = item;
    deepest = Math.max(deepest, level);
    for (const child of children(node)) stack.push([child, level + 1]);
  }
  return deepest;
}

function estimate(node: ASTNode, bound: ReadonlyMap<string, Poly>): Estimate {
  switch (node.op) {
    case 'value':
      return {
        size: { c: typeof node.args === 'string' ? Math.max(1, node.args.length) : 1, d: 0 },
        cost: ONE,
      };
    case 'id':
      return { size: bound.get(node.args) ?? DATA, cost: ONE };
    case 'rcall': {
      const [name, receiver, args] = node.args;
      const variable = args[0];
      if (name === 'bind' && receiver.op === 'id' && receiver.args === 'cel' && variable?.op === 'id') {
        const init = args[1] ? estimate(args[1], bound) : { size: ONE, cost: ONE };
        const inner = new Map(bound).set(variable.args, init.size);
        const body = args[2] ? estimate(args[2], inner) : { size: ONE, cost: ONE };
        return { size: body.size, cost: add(init.cost, body.cost) };
      }
      if (COMPREHENSIONS.has(name) && variable?.op === 'id') {
        const range = estimate(receiver, bound);
        const inner = new Map(bound).set(variable.args, range.size);
        const parts = args.slice(1).map((arg) => estimate(arg, inner));
        const body = parts.reduce((sum, part) => add(sum, part.cost), ONE);
        const produced = parts.reduce((sum, part) => add(sum, part.size), ONE);
        const cost = add(range.cost, mul(range.size, body));
        if (name === 'map') return { size: mul(range.size, produced), cost };
        if (name === 'filter') return { size: range.size, cost };
        return { size: ONE, cost };
      }
      break;
    }
  }
  // Anything else: the result is at most as big as its operands together. Computing it costs the
  // operands' costs, plus copying them for `+` (concatenation) or scanning the list for `in`; other
  // steps count one, so comparing two items inside nested loops stays quadratic, not cubic.
  const copies = node.op === '+' || node.op === 'in';
  let size: Poly = ONE;
  let cost: Poly = ONE;
  for (const child of children(node)) {
    const inner = estimate(child, bound);
    size = add(size, inner.size);
    cost = add(cost, copies ? add(inner.cost, inner.size) : inner.cost);
  }
  return { size, cost };
}

/** Why an expression is too big to evaluate safely, or undefined when it is within bounds. */
export function expressionLimitProblem(
  expression: string,
  ast?: ASTNode,
): ExpressionLimitProblem | undefined {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return {
      code: 'EXPRESSION_TOO_LONG',
      message: `the expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are allowed`,
    };
  }
  if (ast === undefined) return undefined;
  const levels = depth(ast);
  if (levels > MAX_EXPRESSION_DEPTH) {
    return {
      code: 'EXPRESSION_TOO_DEEP',
      message: `the expression nests ${levels} levels deep; at most ${MAX_EXPRESSION_DEPTH} are allowed`,
    };
  }
  const { cost } = estimate(ast, new Map());
  if (at(cost, NOMINAL_DATA_SIZE) > MAX_EXPRESSION_COST) {
    const shape = cost.d === 0 ? 'a constant' : cost.d === 1 ? 'linear' : `degree ${cost.d}`;
    return {
      code: 'EXPRESSION_TOO_COSTLY',
      message: `the expression could do too much work (estimated ${shape} in the data size, factor ${cost.c.toPrecision(3)}): at most ${MAX_EXPRESSION_COST.toExponential()} steps over a thousand items`,
    };
  }
  return undefined;
}
