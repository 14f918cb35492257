// Hostile adapter modules, generated: wrong shapes, throwing and hanging imports and factories.
// Every one must end in one AdapterError naming the file — bounded in time when it hangs.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdapterError } from '../../src/queue/adapter-error.js';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import { executeRun } from '../../src/scenario/execute-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-fuzz-adapters-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const METHODS = ['setup', 'teardown', 'enqueue', 'claim', 'extend', 'ack', 'fail'] as const;

/** A JavaScript expression for something that is not quite an adapter. */
const wrongShape: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc
    .record({
      name: fc.oneof(fc.string(), fc.integer().map(String)),
      drop: fc.subarray([...METHODS]),
      notFunction: fc.subarray([...METHODS]),
      audit: fc.oneof(
        fc.constant('undefined'),
        fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      ),
    })
    .map(({ name, drop, notFunction, audit }) => {
      const methods = METHODS.filter((m) => !drop.includes(m)).map((m) =>
        notFunction.includes(m) ? `${m}: 42` : `async ${m}() { return undefined; }`,
      );
      return `{ name: ${JSON.stringify(name)}, description: 'x', audit: ${audit}, ${methods.join(', ')} }`;
    }),
);

/** A whole module: a wrong shape exported some way, or a module that throws or hangs. */
const hostileModule: fc.Arbitrary<string> = fc.oneof(
  wrongShape.map((v) => `export default ${v};`),
  wrongShape.map((v) => `export const queue = ${v};`),
  wrongShape.map((v) => `export default () => (${v});`),
  wrongShape.map((v) => `export default async () => (${v});`),
  fc.constantFrom(
    `throw new Error('boom at import');`,
    `throw 'a string, not an Error';`,
    `await new Promise(() => {});`,
    `export default () => { throw new TypeError('factory boom'); };`,
    `export default () => new Promise(() => {});`,
    `export default (options) => ({});`,
    `export const nothing = 1;`,
    `export {};`,
    `export default null;`,
    `syntax error here (`,
    `import 'a-package-that-does-not-exist';`,
  ),
);

describe('fuzzed adapter modules', () => {
  // A short load timeout for the hanging cases, in this block only: the real run below starts
  // workers that inherit the environment and load a .ts adapter.
  const previousTimeout = process.env.LEASEPROOF_ADAPTER_TIMEOUT_MS;
  beforeAll(() => {
    process.env.LEASEPROOF_ADAPTER_TIMEOUT_MS = '300';
  });
  afterAll(() => {
    if (previousTimeout === undefined) delete process.env.LEASEPROOF_ADAPTER_TIMEOUT_MS;
    else process.env.LEASEPROOF_ADAPTER_TIMEOUT_MS = previousTimeout;
  });
  it(
    'one clear AdapterError for each, within the load timeout when it hangs',
    { timeout: 120_000 },
    async () => {
      let tried = 0;
      await fc.assert(
        fc.asyncProperty(hostileModule, async (source) => {
          tried += 1;
          const file = join(dir, `adapter-${tried}.mjs`);
          await writeFile(file, `${source}\n`);
          const started = performance.now();
          const error = await loadQueueAdapter(file).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, source).toBeInstanceOf(AdapterError);
          expect((error as AdapterError).message).toContain(file);
          // 300 ms timeout, with room for a slow import on a loaded machine.
          expect(performance.now() - started).toBeLessThan(10_000);
        }),
        { numRuns: 200, seed: 12 },
      );
      console.log(
        `fuzzed ${tried} adapter modules: each ended in one AdapterError naming its file`,
      );
    },
  );

  it('says which part hung', async () => {
    const file = join(dir, 'hangs.mjs');
    await writeFile(file, 'await new Promise(() => {});\n');
    const error = (await loadQueueAdapter(file).catch((e: unknown) => e)) as AdapterError;
    expect(error.message).toBe(
      `importing queue adapter file ${file} (a top-level await that never settles?) did not settle within 300ms`,
    );
  });
});

describe('an adapter call that hangs in a real run', () => {
  it(
    'is bounded, reported as an indeterminate ack naming the call, and the run still ends',
    { timeout: 120_000 },
    async () => {
      const env = await new EmbeddedEnvironmentProvider().start();
      try {
        const lease = { durationMs: 300, heartbeatMs: 100, extendByMs: 300, pollMs: 30 };
        const { history, drained } = await executeRun(env, {
          scenario: 'hanging-ack',
          seed: 1,
          queue: join(import.meta.dirname, 'fixtures', 'hanging-ack-adapter.ts'),
          workers: 1,
          lease,
          plans: [[{ ms: 10, sync: false, effect: true }]],
          faults: [],
          drainTimeoutMs: 3_000,
        });
        expect(drained).toBe(false);
        const acks = history.events.filter(
          (e) => e.type === 'worker' && e.kind === 'ack' && e.phase === 'complete',
        );
        expect(acks.length).toBeGreaterThan(0);
        // statement timeout = the lease (300 ms): bound 2 × 300 + 1000 ms.
        expect(acks[0]).toMatchObject({
          outcome: 'info',
          detail: 'queue adapter "hanging-ack": ack() did not settle within 1600ms',
        });
      } finally {
        await env.stop();
      }
    },
  );
});
