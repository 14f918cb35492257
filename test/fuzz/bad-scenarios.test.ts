// Malformed and hostile scenario files, generated: every one must end in one ScenarioError that
// names the file (or load, when a mutation happened to keep it valid) — never another kind of
// error, a hang, or a crash. The count of files tried is printed.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { LeaseproofError } from '../../src/errors.js';
import { loadScenario } from '../../src/scenario/load-scenario.js';
import { ScenarioError } from '../../src/scenario/scenario-error.js';
import { descendantsOf } from '../support/processes.js';
import { finished, spawnCli } from '../support/run-node.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

let dir: string;
let base: Record<string, Json>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-fuzz-'));
  base = parse(await readFile('scenarios/pause-past-lease.yaml', 'utf8')) as Record<string, Json>;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every path into a JSON value (objects' keys, arrays' indices), the root included. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const here = [prefix];
  if (Array.isArray(value))
    return [...here, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (value !== null && typeof value === 'object') {
    return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
  }
  return here;
}

/** A copy of `value` with `path` replaced by `f(old)` (`undefined`: deleted). */
function edit(
  value: Json,
  path: (string | number)[],
  f: (old: Json) => Json | undefined,
): Json | undefined {
  if (path.length === 0) return f(value);
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    Json
  >;
  const next = edit(copy[head!]!, rest, f);
  if (next === undefined) delete copy[head!];
  else copy[head!] = next;
  return copy;
}

const nested = (depth: number): Json => {
  let v: Json = 1;
  for (let i = 0; i < depth; i += 1) v = i % 2 === 0 ? [v] : { x: v };
  return v;
};

/** Values of the wrong type, out of range, or merely strange. */
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    -0.5,
    1e308,
    -1e308,
    2 ** 53 + 1,
    '',
    '-5s',
    '1e309ms',
    '99999999999h',
    'NaN',
    'Infinity',
    '0x10',
    '5 seconds',
    '🦀',
    '__proto__',
    'constructor',
    [],
    {},
    { __proto__: { polluted: true } } as Json,
  ),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.integer({ min: 50, max: 400 }).map(nested),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

/** One edit of the valid base: a value replaced, a key added or deleted. */
const mutation = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom('replace', 'add-key', 'delete'),
  key: fc.oneof(
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.constantFrom('__proto__', 'constructor', 'faults', 'lease'),
  ),
  value: hostileValue,
});

/** Whole files that are not YAML one would write: anchors bombs, binary, broken UTF-8. */
const hostileText: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constant(
    Buffer.from(
      [
        'a: &a ["x","x","x","x","x","x","x","x","x"]',
        ...Array.from(
          { length: 9 },
          (_, i) =>
            `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
        ),
        'name: *j',
      ].join('\n'),
    ),
  ),
  fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([at, bytes]) => {
    const text = Buffer.from(stringify(base));
    const cut = at % text.length;
    return Buffer.concat([
      text.subarray(0, cut),
      Buffer.from([0xff, 0xfe, ...bytes]),
      text.subarray(cut),
    ]);
  }),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => Buffer.from(s)),
);

let tried = 0;
let rejected = 0;

/** Loads one file's bytes; asserts the outcome is a load or one clear ScenarioError. */
async function judge(bytes: Buffer): Promise<void> {
  tried += 1;
  const file = join(dir, `case-${tried}.yaml`);
  await writeFile(file, bytes);
  const outcome = await Promise.race([
    loadScenario(file).then(
      () => 'loaded' as const,
      (error: unknown) => error,
    ),
    new Promise((resolve) => setTimeout(() => resolve('hung'), 5_000)),
  ]);
  if (outcome === 'loaded') return;
  expect(outcome).not.toBe('hung');
  expect(outcome).toBeInstanceOf(ScenarioError);
  expect((outcome as ScenarioError).message).toContain(file);
  expect((outcome as ScenarioError).problems.length).toBeGreaterThan(0);
  rejected += 1;
}

describe('fuzzed scenario files', () => {
  it('one clear error for every malformed or hostile file', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (edits) => {
        let doc: Json | undefined = base;
        for (const m of edits) {
          if (doc === undefined) break;
          const paths = pathsOf(doc);
          const path = paths[m.pick % paths.length]!;
          doc = edit(doc, path, (old) =>
            m.op === 'delete'
              ? undefined
              : m.op === 'add-key' && old !== null && typeof old === 'object' && !Array.isArray(old)
                ? { ...old, [m.key]: m.value }
                : m.value,
          );
        }
        await judge(Buffer.from(stringify(doc ?? null, { aliasDuplicateObjects: false })));
      }),
      { numRuns: 400, seed: 9 },
    );
    await fc.assert(fc.asyncProperty(hostileText, judge), { numRuns: 150, seed: 10 });
    console.log(
      `fuzzed ${tried} scenario files: ${rejected} rejected with one clear error, ${tried - rejected} still valid`,
    );
    expect(rejected).toBeGreaterThan(tried * 0.8);
  });

  it(
    'the CLI turns a sample of them into exit 2, one error line, no stack trace, no leftover process',
    { timeout: 120_000 },
    async () => {
      const samples = fc.sample(hostileText, { numRuns: 4, seed: 11 });
      for (const [i, bytes] of [Buffer.from('name: [unclosed'), ...samples].entries()) {
        const file = join(dir, `cli-${i}.yaml`);
        await writeFile(file, bytes);
        const child = spawnCli(['run', file, '--queue', 'reference'], {
          LEASEPROOF_STATE_DIR: join(dir, 'state'),
        });
        const result = await finished(child);
        expect(result.code, result.stderr).toBe(2);
        const errors = result.stderr.split('\n').filter((line) => line.startsWith('leaseproof:'));
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain(file);
        expect(result.stderr).not.toMatch(/^\s+at /m);
        expect(descendantsOf(child.pid!)).toEqual([]);
      }
    },
  );
});

it('counts as a LeaseproofError for callers that branch on the base class', () => {
  expect(new ScenarioError('f.yaml', [{ path: '', found: 'x', expected: 'y' }])).toBeInstanceOf(
    LeaseproofError,
  );
});
