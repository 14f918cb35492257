import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueAdapter } from '../../src/libraries/load-adapter.js';
import { AdapterError } from '../../src/queue/adapter-error.js';
import { adapterProblems } from '../../src/queue/validate-adapter.js';
import { builtInQueues, LIBRARY_QUEUES, queueNames } from '../../src/libraries/registry.js';
import { workerBehaviourOf } from '../../src/queue/worker-behaviour.js';
import tinyQueue from '../../examples/tiny-queue.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures');
const BUILT_IN = [
  'reference',
  'unconditional-ack',
  'fence-without-deadline',
  'reused-token',
  'reclaim-ignores-state',
  'select-then-update',
  'unlocked-claim',
  'extend-from-claim-time',
  'lease-in-seconds',
  'worker-clock-lease',
  'fail-by-id',
  'fail-without-token',
  'retry-on-worker-clock',
  'main-thread-heartbeat',
  'no-watchdog',
  'watchdog-between-jobs',
  'early-sweep',
  'grace-after-deadline',
  'extend-without-token',
  'check-then-write',
  'heartbeat-ignores-errors',
  'shutdown-stops-heartbeat',
  'ack-after-cancel',
  // The correct controls: the reference's lease built another way (reap on the poll path).
  'reap-on-poll',
  // The real libraries (src/libraries/), driven through their own code: their statements under
  // leaseproof's loop, and (`-native`) their own loops.
  'pg-boss',
  'pg-boss-native',
  // pg-boss 12, its own loop under Node 22 (the other two are the pinned pg-boss 10).
  'pg-boss@12',
  'graphile-worker',
  'graphile-worker-native',
  // graphile-worker 0.18 (ESM-only), its own loop under Node 22 (the other two are 0.17.3).
  'graphile-worker@0.18',
  // Python libraries: native mode (their own loops) and procrastinate's statements.
  'pgqueuer',
  'pgqueuer-statements',
  'procrastinate',
  'procrastinate-statements',
  'river',
  'db-scheduler',
];
/** The variants whose worker differs from the reference worker; every other one shares it. */
const OWN_WORKER: Record<string, object> = {
  'main-thread-heartbeat': { heartbeat: 'event-loop', watchdog: true, shutdown: 'keeps-heartbeat' },
  'no-watchdog': { heartbeat: 'thread', watchdog: false, shutdown: 'keeps-heartbeat' },
  'watchdog-between-jobs': {
    heartbeat: 'thread',
    watchdog: 'between-jobs',
    shutdown: 'keeps-heartbeat',
  },
  'shutdown-stops-heartbeat': { heartbeat: 'thread', watchdog: true, shutdown: 'stops-heartbeat' },
};

/** The AdapterError a load fails with (fails the test if it loads). */
async function loadError(nameOrPath: string, cwd?: string): Promise<AdapterError> {
  const error: unknown = await loadQueueAdapter(nameOrPath, cwd === undefined ? {} : { cwd }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AdapterError);
  expect((error as AdapterError).code).toBe('LEASEPROOF_BAD_ADAPTER');
  return error as AdapterError;
}

describe('built-in queues', () => {
  it('load by name, each a valid adapter under its own name', async () => {
    expect(queueNames()).toEqual(BUILT_IN);
    for (const name of BUILT_IN) {
      const adapter = await loadQueueAdapter(name);
      expect(adapter).toBe(builtInQueues[name]);
      expect(adapter.name).toBe(name);
      expect(adapterProblems(adapter)).toEqual([]);
    }
  });

  it('a lease tolerance is declared by real libraries only, never by the reference or its variants', () => {
    // The mutation matrix judges the reference and the known-bad variants at ε: a tolerance
    // there would let a wrong deadline through.
    const library = new Set(LIBRARY_QUEUES.map((q) => q.name));
    const declaring = BUILT_IN.filter(
      (name) => builtInQueues[name]!.contract?.leaseTolerance !== undefined,
    );
    expect(declaring.every((name) => library.has(name))).toBe(true);
    expect(declaring).toContain('db-scheduler');
  });

  it('refuse a lease tolerance that is not { ms(settings, lease), why }', () => {
    const adapter = { ...builtInQueues.reference!, contract: { leaseTolerance: { ms: 5 } } };
    expect(adapterProblems(adapter)).toEqual([
      expect.stringMatching(
        /contract: .*leaseTolerance\?: \{ ms\(settings, lease\): number, why: string \}/,
      ),
    ]);
  });

  it('fill in the reference worker behaviour where they do not differ from it', () => {
    const behaviours = Object.fromEntries(
      BUILT_IN.map((name) => [name, workerBehaviourOf(builtInQueues[name]!)]),
    );
    const correct = { heartbeat: 'thread', watchdog: true, shutdown: 'keeps-heartbeat' };
    expect(behaviours).toEqual(
      Object.fromEntries(BUILT_IN.map((name) => [name, OWN_WORKER[name] ?? correct])),
    );
  });

  it('an unknown name lists the built-ins', async () => {
    for (const name of ['referance', 'toString', 'constructor']) {
      const error = await loadError(name);
      expect(error.message).toContain(`unknown queue "${name}"`);
      for (const builtIn of BUILT_IN) expect(error.message).toContain(builtIn);
    }
  });

  it('a library at a version: a major or its exact release, and the pinned major is the plain name', async () => {
    expect(await loadQueueAdapter('pg-boss@12')).toBe(builtInQueues['pg-boss@12']);
    expect(await loadQueueAdapter('pg-boss-native@12')).toBe(builtInQueues['pg-boss@12']);
    expect(await loadQueueAdapter('pg-boss@12.38.1')).toBe(builtInQueues['pg-boss@12']);
    expect(await loadQueueAdapter('pg-boss@10')).toBe(builtInQueues['pg-boss']);
    expect(await loadQueueAdapter('pg-boss-native@10.4.2')).toBe(builtInQueues['pg-boss-native']);
    // Another 12.x with the heartbeat: the same target at that release, under its own name.
    const other = await loadQueueAdapter('pg-boss@12.20.0');
    expect(other.name).toBe('pg-boss@12.20.0');
    expect(other.description).toMatch(/^pg-boss 12\.20\.0 /);
    expect(await loadQueueAdapter('pg-boss-native@12.20.0')).toBe(other);
    // graphile-worker: 0.17 is the pinned release, 0.18 its own loop under Node 22.
    expect(await loadQueueAdapter('graphile-worker@0.18')).toBe(
      builtInQueues['graphile-worker@0.18'],
    );
    expect(await loadQueueAdapter('graphile-worker-native@0.18.0')).toBe(
      builtInQueues['graphile-worker@0.18'],
    );
    expect(await loadQueueAdapter('graphile-worker@0.17.3')).toBe(builtInQueues['graphile-worker']);
    expect(await loadQueueAdapter('graphile-worker-native@0.17')).toBe(
      builtInQueues['graphile-worker-native'],
    );
  });

  it('a version leaseproof does not run names the ones it does', async () => {
    for (const name of ['pg-boss@12.11.2', 'pg-boss@12.x']) {
      expect((await loadError(name)).message).toContain('from 12.12.0');
    }
    const error = await loadError('pg-boss@11');
    expect(error.message).toMatch(/^queue "pg-boss@11": leaseproof does not run pg-boss 11; /);
    expect(error.message).toContain('pg-boss@10 (10.4.2');
    expect(error.message).toContain('pg-boss@12 (12.38.1');
    const other = await loadError('graphile-worker@0.16.0');
    expect(other.message).toMatch(
      /^queue "graphile-worker@0.16.0": leaseproof does not run graphile-worker 0.16.0; it runs graphile-worker@0.17 \(0.17.3, .*\) and graphile-worker@0.18 \(0.18.0, /,
    );
    const unversioned = await loadError('river@0.50.0');
    expect(unversioned.message).toContain('"river" runs one version');
    expect(unversioned.message).toContain('pg-boss@12');
  });

  it('an unknown name close to a built-in one suggests it', async () => {
    expect((await loadError('referance')).message).toMatch(
      /^unknown queue "referance" \(did you mean reference\?\): the built-in queues are /,
    );
    expect((await loadError('graphile_worker')).message).toContain(
      '(did you mean graphile-worker?)',
    );
    expect((await loadError('my-own-queue')).message).not.toContain('did you mean');
  });
});

describe('adapter files', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leaseproof-adapters-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads examples/tiny-queue.ts by a path relative to the working directory', async () => {
    expect(await loadQueueAdapter('./examples/tiny-queue.ts')).toBe(tinyQueue);
    expect(await loadQueueAdapter('tiny-queue.ts', { cwd: resolve('examples') })).toBe(tinyQueue);
  });

  it('calls a zero-argument factory, and finds an export named `queue`', async () => {
    const made = await loadQueueAdapter(join(FIXTURES, 'factory-adapter.ts'));
    expect(made.name).toBe('tiny-from-factory');
    expect(made.audit).toBe(tinyQueue.audit);
    const named = await loadQueueAdapter(join(FIXTURES, 'named-adapter.ts'));
    expect(named.name).toBe('tiny-named');
  });

  it('lists every problem of a bad adapter in one error naming the file', async () => {
    const file = join(FIXTURES, 'bad-adapter.ts');
    const error = await loadError(file);
    expect(error.problems).toEqual([
      'claim: got a string ("SELECT 1"); expected a function (db, ctx) => Promise<Claim | undefined>',
      'ack: missing; expected a function (db, claim, ctx) => Promise<boolean>',
    ]);
    expect(error.message).toContain(
      `queue adapter file ${file} (default export) is not a QueueAdapter`,
    );
    for (const problem of error.problems) expect(error.message).toContain(problem);
  });

  it('lists every problem of a plain-JS adapter, audit and worker included', async () => {
    const file = join(dir, 'half.mjs');
    await writeFile(
      file,
      `export const adapter = { name: 'half', description: '', audit: { table: 'jobs',
         expressions: { jobId: 'r.id', holder: 7 }, completion: 'upsert' },
         worker: { heartbeat: 'fiber' }, setup() {}, checkpoint: true };\n`,
    );
    const error = await loadError(file);
    expect(error.message).toContain(`queue adapter file ${file} (export "adapter")`);
    expect(error.problems.map((p) => p.slice(0, p.indexOf(':')))).toEqual([
      'description',
      'audit.expressions.holder',
      'audit.expressions.deadline',
      'audit.expressions.state',
      'audit.completion',
      'teardown',
      'enqueue',
      'claim',
      // extend is optional: a queue without it has no lease extension (no heartbeat).
      'ack',
      'fail',
      'checkpoint',
      'worker.heartbeat',
    ]);
  });

  it('names a file that does not exist, and where the path was resolved from', async () => {
    const error = await loadError('./queues/missing-queue.ts', dir);
    expect(error.message).toBe(
      `queue adapter file ${join(dir, 'queues/missing-queue.ts')} does not exist ` +
        `("./queues/missing-queue.ts" resolved against ${dir})`,
    );
  });

  it('suggests the adapter file beside a missing one whose name is a likely typo', async () => {
    const error = await loadError('./examples/tiny-queu.ts');
    expect(error.message).toBe(
      `queue adapter file ${resolve('examples/tiny-queu.ts')} does not exist ` +
        `("./examples/tiny-queu.ts" resolved against ${process.cwd()}); ` +
        'did you mean ./examples/tiny-queue.ts?',
    );
    // The message says it all: no system error to print again as its cause.
    expect(error.cause).toBeUndefined();
  });

  it('names a file whose import throws, with the error', async () => {
    const file = join(FIXTURES, 'throwing-adapter.ts');
    const error = await loadError(file);
    expect(error.message).toBe(
      `could not import queue adapter file ${file}: boom while importing the adapter`,
    );
    expect((error.cause as Error).message).toBe('boom while importing the adapter');
  });

  it('says what a file exports when none of it is an adapter', async () => {
    const error = await loadError(join(FIXTURES, 'no-adapter.ts'));
    expect(error.message).toMatch(
      /exports no adapter: expected a default export .* it exports "somethingElse", "helper"/,
    );
  });

  it('rejects a factory that takes arguments or throws, and a file of another type', async () => {
    const takesArgs = join(dir, 'takes-args.mjs');
    await writeFile(takesArgs, 'export default (options) => options;\n');
    expect((await loadError(takesArgs)).message).toContain(
      'is a function of 1 argument(s); expected a QueueAdapter object or a function of no arguments',
    );
    const throws = join(dir, 'throws.mjs');
    await writeFile(throws, "export default () => { throw new Error('no config'); };\n");
    expect((await loadError(throws)).message).toContain(
      `queue adapter file ${throws} (default export) threw when called to make the adapter: no config`,
    );
    const json = join(dir, 'queue.json');
    await writeFile(json, '{}');
    expect((await loadError(json)).message).toContain('has the extension ".json"; expected one of');
  });
});
