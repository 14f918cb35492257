// The layout's rules, checked on the source itself: every room (a folder of src/) imports
// other rooms in one direction only, the shared files at the top of src/ import no room, and the
// worker code imports only what a worker process runs. Cheap (a regex over every file), so CI
// keeps it. To see the arrows: `npx vitest run test/layout`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/run-node.js';

const SRC = join(ROOT, 'src');
// Entry points, not rooms: the public barrel and the vitest plugin may import anything.
const ENTRY_POINTS = new Set(['index.ts', 'vitest.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The room of a file: its first folder under src/, or '(top)' for a file directly in src/. */
function room(file: string): string {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '(top)' : parts[0]!;
}

/** Every relative import of every file: [from file, to file]. */
function imports(): [string, string][] {
  return sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map(
      (m): [string, string] => [file, resolve(dirname(file), m[1]!)],
    ),
  );
}

/** room → rooms it imports → the files that do. */
function arrows(): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const [from, to] of imports()) {
    if (ENTRY_POINTS.has(relative(SRC, from))) continue;
    const a = room(from);
    const b = room(to);
    if (a === b) continue;
    const targets = out.get(a) ?? new Map<string, Set<string>>();
    out.set(a, targets);
    const files = targets.get(b) ?? new Set<string>();
    targets.set(b, files);
    files.add(relative(SRC, from));
  }
  return out;
}

/** The pairs of rooms that import each other, with the files on each side. */
function twoWay(all: Map<string, Map<string, Set<string>>>): string[] {
  const both: string[] = [];
  for (const [a, targets] of all) {
    for (const [b, files] of targets) {
      const back = all.get(b)?.get(a);
      if (a < b && back !== undefined) {
        both.push(`${a} ⇄ ${b}: ${[...files].join(', ')} / ${[...back].join(', ')}`);
      }
    }
  }
  return both;
}

describe('the layout of src/', () => {
  it('no two rooms import each other', () => {
    expect(twoWay(arrows())).toEqual([]);
  });

  it('the shared files at the top of src/ import no room', () => {
    expect([...(arrows().get('(top)')?.keys() ?? [])]).toEqual([]);
  });

  it('native worker programs import only the worker pieces they reuse, the libraries and the contract', () => {
    // A native program runs in a worker process too: no controller code in it.
    // Only: a program that needs none of the contract's types need not import it.
    const allowed = ['libraries', 'queue', 'worker'];
    const imported = [...(arrows().get('native')?.keys() ?? [])];
    expect(imported.filter((folder) => !allowed.includes(folder))).toEqual([]);
    expect(imported).toContain('worker');
  });

  it('worker code imports only the queue contract and the libraries it loads', () => {
    expect([...(arrows().get('worker')?.keys() ?? [])].sort()).toEqual(['libraries', 'queue']);
  });

  it('no product file imports test code', () => {
    const intoTests = imports().filter(([, to]) => !to.startsWith(SRC + '/'));
    expect(
      intoTests.map(([from, to]) => `${relative(ROOT, from)} → ${relative(ROOT, to)}`),
    ).toEqual([]);
  });

  it('the check sees a two-way pair (mutants → cli, as it once was, beside cli → mutants)', () => {
    const all = arrows();
    expect(all.get('cli')?.has('mutants')).toBe(true);
    const withBack = new Map(all);
    withBack.set('mutants', new Map([...(all.get('mutants') ?? []), ['cli', new Set(['x.ts'])]]));
    expect(twoWay(withBack)).toEqual([
      expect.stringMatching(/^cli ⇄ mutants: cli\/mutants-action\.ts/),
    ]);
  });
});
