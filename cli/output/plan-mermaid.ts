// `tideline plan --format mermaid`: the step graph as a Mermaid flowchart — steps in order,
// parallel branches fanning out and joining, foreach loops, conditions on the edges, and the
// compensation chain of each step as dashed edges. Paste it into any Mermaid renderer.
import type { Plan, PlanStep } from '../plan/build-plan';
import { viewsOf } from '../plan/step-kind-views';
import { printable } from '../../cloud/printable';

interface Exit {
  id: string;
  label?: string;
}

function escapeLabel(text: string): string {
  // A label line is one line: a newline is a space, any other control character shown escaped.
  return printable(text.replace(/\n/g, ' '))
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;');
}

function short(raw: string, max = 48): string {
  const text = raw.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

class FlowchartBuilder {
  readonly lines: string[] = [];
  private count = 0;

  /** A node; each label line is escaped on its own and the lines joined with Mermaid's <br/>. */
  node(
    label: string | string[],
    shape: 'box' | 'stadium' | 'hexagon' | 'circle' | 'subroutine' = 'box',
  ): string {
    const id = `n${++this.count}`;
    const text = `"${(Array.isArray(label) ? label : [label]).map(escapeLabel).join('<br/>')}"`;
    const shaped =
      shape === 'stadium'
        ? `([${text}])`
        : shape === 'hexagon'
          ? `{{${text}}}`
          : shape === 'circle'
            ? `((${text}))`
            : shape === 'subroutine'
              ? `[[${text}]]`
              : `[${text}]`;
    this.lines.push(`  ${id}${shaped}`);
    return id;
  }

  edge(from: Exit, to: string, dashed = false): void {
    const label = from.label ? `|"${escapeLabel(short(from.label))}"|` : '';
    this.lines.push(`  ${from.id} ${dashed ? '-.->' : '-->'}${label} ${to}`);
  }

  /**
   * Adds a list of steps after `entries`; returns where the list ends. This recursion is over the
   * built plan, not a walk of the step tree (dsl/step-tree.ts): each step's edges start where the
   * step before it ended and a parallel or foreach ends where its nested steps ended, so a step
   * needs what its nested steps returned, which a visit-each-step walk does not give.
   */
  steps(steps: PlanStep[], entries: Exit[]): Exit[] {
    let exits = entries;
    for (const step of steps) exits = this.step(step, exits);
    return exits;
  }

  private describe(step: PlanStep): string[] {
    const title = step.name ? `${step.id}: ${step.name}` : step.id;
    return [title, viewsOf(step.kind).diagramLabel(step, short)];
  }

  private step(step: PlanStep, entries: Exit[]): Exit[] {
    const id = this.node(this.describe(step), viewsOf(step.kind).diagramShape);
    for (const entry of entries)
      this.edge(step.if !== undefined ? { id: entry.id, label: `if ${step.if}` } : entry, id);
    this.compensation(step, id);
    if (step.kind === 'parallel') {
      const join = this.node('all branches done', 'circle');
      for (const branch of step.branches ?? []) {
        const ends = this.steps(branch.steps, [{ id, label: branch.id }]);
        for (const end of ends) this.edge(end, join);
      }
      return [{ id: join }];
    }
    if (step.kind === 'foreach') {
      const ends = this.steps(step.steps ?? [], [{ id, label: `each ${step.as ?? 'item'}` }]);
      for (const end of ends) this.edge({ id: end.id, label: 'next' }, id, true);
      return [{ id, label: 'all done' }];
    }
    return [{ id }];
  }

  /** The steps that undo `step`, as a dashed chain hanging off it. */
  private compensation(step: PlanStep, owner: string): void {
    let previous: Exit = { id: owner, label: 'undo' };
    for (const undo of step.compensate) {
      // Undo steps are boxes, but a rounded polling step stays rounded.
      const shape = viewsOf(undo.kind).diagramShape === 'stadium' ? 'stadium' : 'box';
      const id = this.node(this.describe(undo), shape);
      this.lines.push(`  class ${id} undo`);
      this.edge(previous, id, true);
      previous = { id };
    }
  }
}

export function renderPlanMermaid(plan: Plan): string {
  const builder = new FlowchartBuilder();
  const start = builder.node(plan.runbook, 'stadium');
  const ends = builder.steps(plan.steps, [{ id: start }]);
  const done = builder.node('done', 'stadium');
  for (const end of ends) builder.edge(end, done);
  return ['flowchart TD', ...builder.lines, '  classDef undo stroke-dasharray: 4 3,fill:#fff5e6', ''].join(
    '\n',
  );
}
