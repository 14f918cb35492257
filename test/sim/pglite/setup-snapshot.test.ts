// The simulation runs a queue's setup once and brings the database back to what it left before
// each later run: the same history as a freshly set-up database, byte for byte; and the setup
// runs again whenever that could be wrong — a run that changed the schema, a setup that read the
// lease of another run, another queue.
import { describe, expect, it } from 'vitest';
import { builtInQueue } from '../../../src/libraries/registry.js';
import { SimDatabase } from '../../../src/sim/pglite/sim-database.js';
import { simulateRun, type SimRunPlan } from '../../../src/sim/pglite/sim-run.js';
import type { QueueAdapter, SqlClient } from '../../../src/queue/types.js';
import { useSimDatabase } from '../../support/sim-database.js';

const simDb = useSimDatabase();

const unit = (ms: number, effect = false) => ({ ms, sync: false, effect });
const plan = (queue: QueueAdapter, seed: number, leaseMs = 800): SimRunPlan => ({
  scenario: 'sim-snapshot',
  seed,
  queue,
  workers: 3,
  lease: { durationMs: leaseMs, heartbeatMs: leaseMs / 4, extendByMs: leaseMs, pollMs: 50 },
  plans: Array.from({ length: 8 }, (_, i) => [unit(100 + (i % 3) * 50), unit(150, true)]),
  faults: [{ kind: 'pause', worker: 'w1', atMs: 150, forMs: 2_000 }],
});

/** `queue` with its setups counted, and (`readsLease`) a setup that reads the lease. */
function counted(queue: QueueAdapter, readsLease = false): QueueAdapter & { setups: number } {
  const wrapped = {
    ...queue,
    setups: 0,
    async setup(client: SqlClient, ctx?: Parameters<QueueAdapter['setup']>[1]) {
      wrapped.setups += 1;
      if (readsLease) void ctx?.lease.durationMs;
      await queue.setup(client, ctx);
    },
  };
  return wrapped;
}

describe('a simulated run on a database restored to its setup', () => {
  for (const name of ['reference', 'pg-boss']) {
    it(`gives ${name} the history of a freshly set-up database, byte for byte`, async () => {
      const queue = counted(builtInQueue(name)!);
      const fresh = JSON.stringify(await simulateRun(simDb(), plan(queue, 5)));
      expect(queue.setups).toBe(1);
      // Another run in between (another seed; the same lease, which pg-boss's setup reads)
      // leaves rows, sequences and dead tuples behind; the restore puts the setup's state back.
      await simulateRun(simDb(), plan(queue, 6));
      const restored = JSON.stringify(await simulateRun(simDb(), plan(queue, 5)));
      expect(queue.setups).toBe(1);
      expect(restored).toBe(fresh);
      // A fresh database in another instance agrees too.
      const other = await SimDatabase.start();
      try {
        expect(
          JSON.stringify(await simulateRun(other, plan(counted(builtInQueue(name)!), 5))),
        ).toBe(fresh);
      } finally {
        await other.stop();
      }
    }, 240_000);
  }

  it('sets up again for another queue, and for another lease when the setup read it', async () => {
    const reference = counted(builtInQueue('reference')!);
    const reading = counted(builtInQueue('reference')!, true);
    await simulateRun(simDb(), plan(reference, 1));
    await simulateRun(simDb(), plan(reading, 1));
    await simulateRun(simDb(), plan(reading, 2));
    expect(reading.setups).toBe(1);
    await simulateRun(simDb(), plan(reading, 2, 1_000));
    expect(reading.setups).toBe(2);
    await simulateRun(simDb(), plan(reference, 1));
    expect(reference.setups).toBe(2);
  }, 240_000);
});

describe('SimDatabase.prepare', () => {
  const client = () => simDb().client('leaseproof-controller');
  let setups = 0;
  const setup = {
    by: {},
    key: 'k',
    run: async () => {
      setups += 1;
      await client().query(`
        CREATE TABLE t (id bigint GENERATED ALWAYS AS IDENTITY, v text, w text GENERATED ALWAYS AS (v || '!') STORED);
        CREATE SEQUENCE s;
        SELECT nextval('s'), nextval('s');
        INSERT INTO t (v) VALUES ('setup-1'), ('setup-2');`);
      return { readKey: false };
    },
  };
  const rows = async (): Promise<unknown[]> =>
    (await client().query('SELECT id, v, w FROM t ORDER BY id')).rows;

  it("restores the setup's rows, identities and sequences instead of running it again", async () => {
    setups = 0;
    expect(await simDb().prepare(setup, 1)).toBe(true);
    const { rows: uuid } = await client().query('SELECT gen_random_uuid() AS u');
    await client().query(
      `INSERT INTO t (v) VALUES ('run'); SELECT nextval('s'); DELETE FROM t WHERE v = 'setup-1'`,
    );
    expect(await simDb().prepare(setup, 1)).toBe(false);
    expect(setups).toBe(1);
    expect(await rows()).toEqual([
      { id: 1, v: 'setup-1', w: 'setup-1!' },
      { id: 2, v: 'setup-2', w: 'setup-2!' },
    ]);
    expect((await client().query("SELECT nextval('s') AS n")).rows).toEqual([{ n: 3 }]);
    await client().query(`INSERT INTO t (v) VALUES ('next')`);
    expect((await rows()).at(-1)).toEqual({ id: 3, v: 'next', w: 'next!' });
    // The deterministic uuid starts again under the run's seed.
    expect((await client().query('SELECT gen_random_uuid() AS u')).rows).toEqual(uuid);
  }, 60_000);

  it('runs the setup again after a run that changed the schema', async () => {
    setups = 0;
    await simDb().prepare(setup, 1);
    for (const ddl of [
      'ALTER TABLE t ADD COLUMN z int',
      'CREATE INDEX ON t (v)',
      'CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
      'DROP SEQUENCE s',
      'ALTER TABLE t RENAME COLUMN v TO v2',
    ]) {
      const before = setups;
      await client().query(ddl);
      expect(await simDb().prepare(setup, 1), ddl).toBe(true);
      expect(setups, ddl).toBe(before + 1);
      expect(await rows()).toHaveLength(2);
    }
    // And not after a run that only wrote rows.
    await client().query(`INSERT INTO t (v) VALUES ('run')`);
    expect(await simDb().prepare(setup, 1)).toBe(false);
  }, 60_000);
});
