import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { EmbeddedEnvironmentProvider } from '../src/env/embedded-env.js';
import type { RunDatabase } from '../src/env/types.js';
import { prepareQueue, waitForDrain, withRunClient } from '../src/pool/queue-database.js';
import { WorkerPool } from '../src/pool/worker-pool.js';
import { loadQueueAdapter } from '../src/libraries/load-adapter.js';
import { drawDuration } from '../src/scenario/durations.js';
import { Random } from '../src/random.js';
import { report } from './stats.js';

const run = promisify(execFile);
const WORKERS = 8;
const JOBS = 3_000;
const CLIENTS = 8;
const UPDATE_SECONDS = 10;

/**
 * Jobs per second drained by 8 worker processes through Toxiproxy (reference queue, no faults,
 * 1–2 units of ~1 ms), against the server's single-row update rate measured as pgbench's
 * built-in "simple-update" does (8 clients), and their ratio
 * jobs/s × writes per job ÷ update TPS. Target ratio >= 0.5.
 */
export async function benchQueueThroughput(): Promise<void> {
  await using env = await new EmbeddedEnvironmentProvider().start();

  const queueDb = await env.createDatabase();
  const adapter = await loadQueueAdapter('reference');
  await prepareQueue(queueDb, adapter, []);
  const random = new Random(42);
  const jobs = Array.from({ length: JOBS }, () => ({
    payload: {
      units: Array.from({ length: random.int(1, 2) }, () => ({
        ms: drawDuration({ dist: 'uniform', minMs: 0.5, maxMs: 1.5 }, random),
        sync: false,
        effect: false,
      })),
    },
  }));
  const lease = { durationMs: 5_000, heartbeatMs: 1_000, extendByMs: 5_000, pollMs: 10 };
  await using pool = await WorkerPool.start({
    env,
    database: queueDb,
    queue: 'reference',
    workers: WORKERS,
    lease,
  });
  const writesBefore = await tupleWrites(queueDb);
  const started = performance.now();
  await withRunClient(queueDb, (client) => adapter.enqueue(client, jobs));
  await waitForDrain(queueDb, adapter, 300_000, 20);
  const seconds = (performance.now() - started) / 1000;
  // Statistics reach pg_stat after the backends report them; give them a moment.
  await new Promise((r) => setTimeout(r, 1_500));
  const writesPerJob = ((await tupleWrites(queueDb)) - writesBefore - JOBS) / JOBS;
  await pool.stop();
  const jobsPerSecond = JOBS / seconds;

  const updateDb = await env.createDatabase();
  const tps = await simpleUpdateTps(updateDb);
  const pgbenchTps = await pgbenchSimpleUpdate(updateDb);

  report({
    metric: 'queue_drain_rate',
    value: round(jobsPerSecond),
    unit: 'jobs/s',
    workers: WORKERS,
    jobs: JOBS,
    via: 'toxiproxy',
  });
  report({
    metric: 'queue_writes_per_job',
    value: round(writesPerJob),
    unit: 'rows written',
    note: 'claim + ack (+ extends); enqueue excluded',
  });
  report({
    metric: 'server_simple_update_rate',
    value: round(tps),
    unit: 'tps',
    clients: CLIENTS,
    seconds: UPDATE_SECONDS,
    method: 'pgbench simple-update transaction, node-postgres clients',
  });
  if (pgbenchTps !== undefined) {
    report({
      metric: 'server_simple_update_rate_pgbench',
      value: round(pgbenchTps),
      unit: 'tps',
      clients: CLIENTS,
      seconds: UPDATE_SECONDS,
    });
  }
  report({
    metric: 'queue_to_update_ratio',
    value: round((jobsPerSecond * writesPerJob) / tps, 3),
    unit: 'ratio',
    formula: 'jobs/s × writes per job ÷ simple-update tps',
    target: '>= 0.5',
  });
}

function round(value: number, digits = 1): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}

/** Rows inserted + updated + deleted in the run database's user tables. */
async function tupleWrites(database: RunDatabase): Promise<number> {
  return withRunClient(database, async (client) => {
    await client.query('SELECT pg_stat_force_next_flush()');
    const result = await client.query<{ n: string }>(
      'SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS n FROM pg_stat_user_tables',
    );
    return Number(result.rows[0]?.n ?? 0);
  });
}

/**
 * pgbench's built-in "simple-update" script, run by `CLIENTS` node-postgres connections: per
 * transaction one UPDATE of a random account, its SELECT, and one INSERT into the history.
 */
async function simpleUpdateTps(database: RunDatabase): Promise<number> {
  const accounts = 100_000;
  await withRunClient(database, async (client) => {
    await client.query(
      `CREATE TABLE pgbench_accounts (aid int PRIMARY KEY, bid int, abalance int, filler char(84))`,
    );
    await client.query(
      `INSERT INTO pgbench_accounts SELECT g, 1, 0, '' FROM generate_series(1, ${accounts}) g`,
    );
    await client.query(
      `CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))`,
    );
    await client.query('VACUUM ANALYZE pgbench_accounts');
  });
  const random = new Random(7);
  const deadline = performance.now() + UPDATE_SECONDS * 1000;
  let transactions = 0;
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      return client;
    }),
  );
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const aid = random.int(1, accounts);
        const delta = random.int(-5000, 5000);
        await client.query('BEGIN');
        await client.query('UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2', [
          delta,
          aid,
        ]);
        await client.query('SELECT abalance FROM pgbench_accounts WHERE aid = $1', [aid]);
        await client.query(
          'INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, $1, $2, CURRENT_TIMESTAMP)',
          [aid, delta],
        );
        await client.query('END');
        transactions += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.end()));
  return transactions / seconds;
}

/** The same with pgbench itself, when it is installed; undefined otherwise. */
async function pgbenchSimpleUpdate(database: RunDatabase): Promise<number | undefined> {
  try {
    await run('pgbench', ['--version']);
  } catch {
    return undefined;
  }
  const url = database.url;
  await run('pgbench', ['-i', '-q', '-s', '1', url]);
  const { stdout } = await run('pgbench', [
    '-b',
    'simple-update',
    '-c',
    String(CLIENTS),
    '-j',
    '2',
    '-T',
    String(UPDATE_SECONDS),
    url,
  ]);
  const match = /tps = ([\d.]+)/.exec(stdout);
  return match ? Number(match[1]) : undefined;
}
