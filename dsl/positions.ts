// Source positions for a parsed YAML document: for every node path (`steps.0.with.name`) where its
// key and its value start, so any problem can be reported as file:line:column.
import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { ProblemPath, SourcePosition } from './problems';

interface Entry {
  key?: SourcePosition;
  value?: SourcePosition;
}

const pathKey = (path: ProblemPath): string => JSON.stringify(path.map(String));

export class PositionIndex {
  private readonly entries = new Map<string, Entry>();

  constructor(
    document: Document,
    private readonly lines: LineCounter,
  ) {
    this.record([], undefined, document.contents as YamlNode | null);
  }

  private position(offset: number | undefined): SourcePosition | undefined {
    if (offset === undefined) return undefined;
    const { line, col } = this.lines.linePos(offset);
    return { line, column: col };
  }

  private record(
    path: ProblemPath,
    keyNode: YamlNode | undefined,
    valueNode: YamlNode | null | undefined,
  ): void {
    const entry: Entry = {};
    const keyAt = this.position(keyNode?.range?.[0]);
    const valueAt = this.position(valueNode?.range?.[0]);
    if (keyAt) entry.key = keyAt;
    if (valueAt) entry.value = valueAt;
    this.entries.set(pathKey(path), entry);
    if (isMap(valueNode)) {
      for (const pair of valueNode.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as YamlNode | null;
        const name = isScalar(key) ? String(key.value) : String(key);
        this.record([...path, name], key ?? undefined, pair.value as YamlNode | null);
      }
    } else if (isSeq(valueNode)) {
      valueNode.items.forEach((item, index) =>
        this.record([...path, index], undefined, item as YamlNode | null),
      );
    }
  }

  /**
   * Where a path starts: its value (or its key, when asked or when the value is empty), or else
   * the nearest enclosing node that exists, so a missing field points at the map that lacks it.
   */
  locate(path: ProblemPath, anchor: 'key' | 'value' = 'value'): SourcePosition {
    for (let length = path.length; length >= 0; length--) {
      const entry = this.entries.get(pathKey(path.slice(0, length)));
      if (!entry) continue;
      const exact = length === path.length;
      const at = exact && anchor === 'key' ? (entry.key ?? entry.value) : (entry.value ?? entry.key);
      if (at) return at;
    }
    return { line: 1, column: 1 };
  }
}
