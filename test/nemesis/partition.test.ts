import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { createFault } from '../../src/nemesis/create-fault.js';
import type { PartitionDirection, PartitionMode } from '../../src/nemesis/partition-fault.js';
import type { ReceivedEvent } from '../../src/pool/worker-process.js';
import { connect, within } from '../support/pg.js';
import { startQueueRun, units, type QueueRun } from '../support/queue-run.js';
import { nemesisContext } from './support.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 };

/**
 * What a statement sent over a partitioned connection does: `hang` (no reply, no error: the
 * bytes vanish), or `error` (the connection is reset or closed); and whether the database
 * committed it anyway — only when the statement got through and the reply was what was lost.
 */
const CASES: {
  mode: PartitionMode;
  direction: PartitionDirection;
  client: 'hang' | 'error';
  committed: boolean;
}[] = [
  { mode: 'blackhole', direction: 'both', client: 'hang', committed: false },
  { mode: 'blackhole', direction: 'upstream', client: 'hang', committed: false },
  { mode: 'blackhole', direction: 'downstream', client: 'hang', committed: true },
  { mode: 'reset', direction: 'both', client: 'error', committed: false },
  { mode: 'reset', direction: 'upstream', client: 'error', committed: false },
  { mode: 'reset', direction: 'downstream', client: 'error', committed: true },
  { mode: 'down', direction: 'both', client: 'error', committed: false },
];

describe('partition modes and directions, statement by statement', () => {
  let run: QueueRun;
  beforeAll(async () => {
    // No jobs: the workers only poll; the probes below are the statements under test.
    run = await startQueueRun(env, { queue: 'reference', workers: 2, lease: LEASE, plans: [] });
    await run.sql('CREATE TABLE probe (id serial PRIMARY KEY, tag text NOT NULL)');
  });
  afterAll(async () => {
    await run?.[Symbol.asyncDispose]();
  });

  for (const c of CASES) {
    it(`${c.mode} ${c.direction}: w1's statement ${c.client === 'hang' ? 'hangs' : 'fails'}${c.committed ? ' after committing' : ' without reaching the database'}; w2's completes`, async () => {
      const clients: pg.Client[] = [];
      const via = async (worker: string): Promise<pg.Client> => {
        const client = await connect(run.pool.proxy(worker).urlFor(run.database));
        clients.push(client);
        return client;
      };
      const w1 = await via('w1');
      const w2 = await via('w2');
      const tag = `${c.mode}-${c.direction}`;
      const { ctx, records } = nemesisContext(env, run.pool);
      const [timed] = createFault({
        kind: 'partition',
        atMs: 0,
        workers: ['w1'],
        mode: c.mode,
        direction: c.direction,
      });
      await timed!.fault.start(ctx);
      try {
        const insert = (client: pg.Client, who: string) =>
          client.query('INSERT INTO probe (tag) VALUES ($1)', [`${tag}-${who}`]);
        const cut = await within(
          insert(w1, 'w1').then(
            () => 'ok' as const,
            () => 'error' as const,
          ),
          800,
        );
        const other = await within(insert(w2, 'w2'), 800);
        expect(cut.done ? cut.value : 'hang').toBe(c.client);
        expect(other.done).toBe(true);
        // A new connection through w1's proxy does not get through either.
        const fresh = await within(
          connect(run.pool.proxy('w1').urlFor(run.database), 600).then(
            (client) => clients.push(client) > 0,
            () => false,
          ),
          800,
        );
        expect(fresh.done && fresh.value).toBe(false);
        // The truth, read directly: did w1's statement commit?
        await sleep(100);
        const rows = await run.sql<{ tag: string }>(
          'SELECT tag FROM probe WHERE tag LIKE $1 ORDER BY tag',
          [`${tag}-%`],
        );
        expect(rows.map((r) => r.tag)).toEqual(
          c.committed ? [`${tag}-w1`, `${tag}-w2`] : [`${tag}-w2`],
        );
      } finally {
        await timed!.fault.heal(ctx);
        for (const client of clients) await client.end().catch(() => undefined);
      }
      expect(records.map((r) => r.phase)).toEqual(['start', 'end']);
      expect(records[0]?.detail).toEqual({ mode: c.mode, direction: c.direction });
      // Healed: w1's path works again.
      const again = await connect(run.pool.proxy('w1').urlFor(run.database));
      await again.query('SELECT 1');
      await again.end();
    });
  }
});

describe('overlapping partitions of one worker', () => {
  let run: QueueRun;
  beforeAll(async () => {
    run = await startQueueRun(env, { queue: 'reference', workers: 2, lease: LEASE, plans: [] });
  });
  afterAll(async () => {
    await run?.[Symbol.asyncDispose]();
  });

  // Explore draws these; Toxiproxy refused the second toxic of a shared name with HTTP 409.
  for (const mode of ['blackhole', 'reset', 'down'] as const) {
    it(`${mode}: both start, and w1 stays cut off until the last of them heals`, async () => {
      const { ctx, records } = nemesisContext(env, run.pool);
      const spec = {
        kind: 'partition' as const,
        atMs: 0,
        workers: ['w1'],
        mode,
        direction: 'both' as const,
      };
      const [first] = createFault(spec);
      const [second] = createFault(spec);
      const reaches = async (): Promise<boolean> => {
        const attempt = connect(run.pool.proxy('w1').urlFor(run.database), 600).then(
          async (client) => {
            await client.query('SELECT 1');
            await client.end();
            return true;
          },
        );
        const result = await within(
          attempt.catch(() => false),
          900,
        );
        return result.done && result.value;
      };
      await first!.fault.start(ctx);
      await second!.fault.start(ctx);
      try {
        await first!.fault.heal(ctx);
        expect(await reaches()).toBe(false);
      } finally {
        await second!.fault.heal(ctx);
        await first!.fault.heal(ctx);
      }
      expect(await reaches()).toBe(true);
      expect(records.map((r) => r.phase)).toEqual(['start', 'start', 'end', 'end']);
    });
  }
});

describe('a partitioned worker in a real run', () => {
  it("stops completing statements while the other worker's keep completing, and resumes after", async () => {
    await using run = await startQueueRun(env, {
      queue: 'reference',
      workers: 2,
      lease: LEASE,
      plans: Array.from({ length: 300 }, () => units(1, 20, { effect: false })),
    });
    const { ctx } = nemesisContext(env, run.pool);
    const [timed] = createFault({
      kind: 'partition',
      atMs: 0,
      workers: ['w1'],
      mode: 'blackhole',
      direction: 'both',
    });
    await sleep(300);
    const start = performance.timeOrigin + performance.now();
    await timed!.fault.start(ctx);
    await sleep(1_500);
    await timed!.fault.heal(ctx);
    const end = performance.timeOrigin + performance.now();
    await sleep(1_200);

    // Completed statements: claims granted and acks that answered ok, by worker, in a window.
    const completions = (worker: string, from: number, to: number): ReceivedEvent[] =>
      run.pool
        .worker(worker)
        .events.filter(
          ({ event }) =>
            (event.kind === 'claim' || event.kind === 'ack') &&
            'outcome' in event &&
            event.outcome === 'ok' &&
            event.at > from &&
            event.at < to,
        );
    // A statement already on its way when the fault began may still complete: 50 ms of grace.
    expect(completions('w1', start + 50, end)).toEqual([]);
    expect(completions('w2', start + 50, end).length).toBeGreaterThan(10);
    // The statement that hung ended as unknown (`info`), not as a failure.
    const hung = run.pool
      .worker('w1')
      .events.filter(
        ({ event }) => 'outcome' in event && event.outcome === 'info' && event.at > start,
      );
    expect(hung.length).toBeGreaterThanOrEqual(1);
    expect(completions('w1', end, end + 1_200).length).toBeGreaterThan(0);
  });
});
