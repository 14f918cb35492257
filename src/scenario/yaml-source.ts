import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import type { DocumentPath } from './document-path.js';
import { ScenarioError, type ScenarioProblem } from './scenario-error.js';

/** A line and column in a file, both 1-based. */
export interface SourcePosition {
  line: number;
  column: number;
}

/** A parsed YAML file: its data, and where each part of it was written. */
export interface YamlSource {
  /** The document as plain data (maps become objects). */
  data: unknown;
  /**
   * Where the value at `path` is written, or its key with `key`; where the path leaves the
   * document (a missing property), the position of the deepest part that exists.
   */
  locate(path: DocumentPath, options?: { key?: boolean }): SourcePosition | undefined;
}

/**
 * Parses YAML text, keeping the positions of its nodes so that a problem found later (by the
 * schema, by a consistency check) can say on which line it is. A syntax error — duplicate keys
 * included, which YAML libraries otherwise resolve silently — is a `ScenarioError` with its
 * line and column.
 */
export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  // prettyErrors: it is what fills in each error's line and column.
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    const problems: ScenarioProblem[] = doc.errors.map((error) => {
      const position = error.linePos?.[0];
      return {
        path: '',
        ...(position && { line: position.line, column: position.col }),
        found: `a YAML syntax error (${firstLine(error.message).replace(/ at line \d+, column \d+:?$/, '')})`,
        expected: 'valid YAML',
      };
    });
    throw new ScenarioError(file, problems);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1_000 });
  } catch (error) {
    throw new ScenarioError(
      file,
      [
        {
          path: '',
          found: `YAML that cannot be read (${firstLine(String(error))})`,
          expected: 'plain YAML',
        },
      ],
      { cause: error },
    );
  }
  const position = (node: Node | null | undefined): SourcePosition | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  return {
    data,
    locate(path, options = {}) {
      let node = doc.contents as Node | null;
      let found = position(node);
      for (const [i, segment] of path.entries()) {
        const last = i === path.length - 1;
        if (isMap(node)) {
          const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === segment);
          if (pair === undefined) return found;
          const key = pair.key as Node | null;
          const value = pair.value as Node | null;
          if (last && options.key) return position(key) ?? found;
          found = position(value) ?? position(key) ?? found;
          node = value;
        } else if (isSeq(node) && typeof segment === 'number') {
          const item = node.items[segment] as Node | null | undefined;
          if (item === undefined) return found;
          found = position(item) ?? found;
          node = item;
        } else {
          return found;
        }
      }
      return found;
    },
  };
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}
