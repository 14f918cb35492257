/**
 * pg-boss 12 under test in native mode (`--queue pg-boss@12`): its own `work()` loop under Node 22
 * (`src/native/targets/pg-boss-12-target.ts`), with the pg-boss release pinned below installed on
 * first need into `.tools/npm/pg-boss@<version>` and Node 22 into `.tools/node22` — never into the
 * project's node_modules, which keep pg-boss 10 (the `pg-boss` and `pg-boss-native` queues).
 *
 * What 12 changes for a lease, all used here:
 * - a job heartbeat (12.12, #716): with `heartbeatSeconds` on the queue, `work()` touches the
 *   job's `heartbeat_on` every `heartbeatRefreshSeconds` and the supervisor fails a job whose
 *   `heartbeat_on + heartbeat_seconds` has passed, as it fails one past
 *   `started_on + expire_seconds`. The lease is the earlier of the two;
 * - an AbortSignal per job (12.4, #622), aborted when the heartbeat finds the claim gone or the
 *   handler timeout passes; leaseproof's handler plan stops at its next unit when it is;
 * - `complete()` and `fail()` awaited (11.0), and fenced to the attempt the worker fetched
 *   (`id:retry_count`, #925), as is the heartbeat's `touch()`.
 *
 * pg-boss refuses a `heartbeatSeconds` below 10; a run's lease is a second or two, so the queue's
 * `heartbeat_seconds` is written after `createQueue` (a rescaled constant, stated in every report).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNode22 } from '../../env/node22-install.js';
import { ensureNpmTools } from '../../env/npm-tools-install.js';
import { PG_BOSS_12_SUPERVISE_S, type PgBoss12Request } from './v12-terms.js';
import { AdapterError } from '../../queue/adapter-error.js';
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter, SetupContext } from '../../queue/types.js';
import { PG_BOSS_QUEUE, PG_BOSS_SCHEMA, pgBossQueue } from './adapter.js';
import { nodeNativeProgram, nodeProgramCommand } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';
import { askedOnce, programJson } from '../program/program-json.js';

/** The pg-boss 12 release `pg-boss@12` runs: the newest 12.x when this target was written. */
export const PG_BOSS_12_VERSION = '12.38.1';

/** The first 12.x with the job heartbeat (#716), which this target uses: the least it runs. */
export const PG_BOSS_12_LEAST_MINOR = 12;

/** Where pg-boss `version` is installed, relative to the project root. */
export function pgBoss12ToolsDir(version: string = PG_BOSS_12_VERSION): string {
  return join('.tools', 'npm', `pg-boss@${version}`);
}

/** pg-boss's default `expireInSeconds` (15 minutes): the bound on a job's whole run. */
const PG_BOSS_DEFAULT_EXPIRE_S = 900;

/** pg-boss's least `heartbeatSeconds` (its attorney.js: "an integer >= 10"). */
const PG_BOSS_LEAST_HEARTBEAT_S = 10;

/** pg-boss's least `pollingIntervalSeconds`. */
const LEAST_POLL_MS = 500;

/** pg-boss's default `retryLimit`. */
const PG_BOSS_DEFAULT_RETRY_LIMIT = 2;

/** The run's heartbeat window, in whole seconds (pg-boss's `heartbeat_seconds` is an int). */
function heartbeatSeconds(leaseMs: number): number {
  return Math.max(1, Math.ceil(leaseMs / 1000));
}

/** Node 22 and pg-boss `version`, installed on first need. */
async function installTools(version: string) {
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const node = await ensureNode22({ log });
  const dir = await ensureNpmTools(pgBoss12ToolsDir(version), [`pg-boss@${version}`], { log });
  return { node, env: { LEASEPROOF_PG_BOSS_DIR: dir } };
}

/** Runs the admin program (setup / enqueue) under Node 22 with one request. */
async function admin(
  version: string,
  tools: Awaited<ReturnType<typeof installTools>>,
  request: PgBoss12Request,
): Promise<{ version: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'leaseproof-pg-boss-12-'));
  try {
    const file = join(dir, 'request.json');
    await writeFile(file, JSON.stringify(request));
    return await programJson<{ version: string }>(
      `pg-boss ${version} ${request.op}`,
      nodeProgramCommand('native/pg-boss-12-admin', [file], tools.node),
      tools.env,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function connection(ctx: SetupContext | undefined, what: string) {
  if (ctx?.databaseUrl === undefined) {
    throw new AdapterError(`pg-boss@12: ${what}() needs the run database's URL (SetupContext)`);
  }
  return {
    databaseUrl: ctx.databaseUrl,
    applicationName: ctx.applicationName ?? 'leaseproof-controller',
  };
}

const made = new Map<string, QueueAdapter>();

/**
 * The native adapter of pg-boss `version` (a 12.x from 12.12 on), named `name` in reports; one
 * per version and process. `pgBoss12Queue` is the tested release.
 */
export function pgBoss12QueueAt(version: string, name = `pg-boss@${version}`): QueueAdapter {
  const key = `${name} ${version}`;
  const known = made.get(key);
  if (known !== undefined) return known;
  const tools = askedOnce(() => installTools(version));
  const adapter: QueueAdapter = {
    name,
    description:
      `pg-boss ${version} (under Node 22) through its own work() loop and supervisor: ` +
      'its fetch, job heartbeat, abort signal, fenced complete / fail and expiry; lease = ' +
      'heartbeatSeconds, extended by each heartbeat.',
    audit: {
      table: `${PG_BOSS_SCHEMA}.job`,
      expressions: {
        jobId: 'r.id::text',
        holder: "CASE WHEN r.state = 'active' THEN r.id::text || '#' || r.retry_count END",
        // The supervisor fails an active job at the first of its two deadlines; LEAST skips the
        // heartbeat's when the job has none.
        deadline: `CASE WHEN r.state = 'active' THEN LEAST(
        r.started_on + r.expire_seconds * interval '1 second',
        r.heartbeat_on + r.heartbeat_seconds * interval '1 second') END`,
        state: pgBossQueue.audit.expressions.state,
      },
      completion: 'update',
    },
    get limits() {
      return programClockLimits();
    },
    ...nativeOnlyPrimitives(name),
    native: {
      description:
        `pg-boss ${version} work(batchSize 1, pollingIntervalSeconds = max(poll, 0.5 s), ` +
        'heartbeatRefreshSeconds = heartbeat) and a supervisor (superviseIntervalSeconds and ' +
        'monitorIntervalSeconds 1) in every worker process, under Node 22, on the worker’s proxy',
      extendsLease: true,
      program: async () => nodeNativeProgram('pg-boss@12', await tools()),
      sweep: {
        description:
          "pg-boss's supervisor fails an active job past started_on + expire_seconds or " +
          'heartbeat_on + heartbeat_seconds back to retry; each worker runs it every second, and ' +
          'pg-boss lets one pass run per monitorIntervalSeconds across them: the longest wait is ' +
          'two intervals',
        intervalMs: () => 2 * PG_BOSS_12_SUPERVISE_S * 1000,
      },
    },

    leaseTerms(requested: LeaseSettings) {
      const leaseS = heartbeatSeconds(requested.durationMs);
      const pollMs = Math.max(LEAST_POLL_MS, requested.pollMs);
      const notes = [
        `pg-boss ${version}, native mode under Node 22: its own work() loop and supervisor`,
        ...(leaseS * 1000 === requested.durationMs
          ? []
          : [
              `heartbeatSeconds is whole seconds: the scenario's ${requested.durationMs} ms lease ` +
                `was rounded up to ${leaseS * 1000} ms`,
            ]),
        ...(pollMs === requested.pollMs
          ? []
          : [
              `pg-boss polls at least every 500 ms (pollingIntervalSeconds): the scenario's ` +
                `${requested.pollMs} ms poll is ${pollMs} ms`,
            ]),
        `expireInSeconds is pg-boss's default, ${PG_BOSS_DEFAULT_EXPIRE_S} s: the heartbeat, not ` +
          "the expiry, bounds a job's lease here",
        "pg-boss's heartbeat is a timer on the worker's event loop, and a heartbeat that cannot " +
          'reach the database aborts nothing',
        'the supervisor runs in a pg-boss instance of its own in each worker process (its ' +
          'connections named <worker>:sweep, so its expiry is read as a sweep), every second ' +
          '(superviseIntervalSeconds and monitorIntervalSeconds, the least pg-boss allows; their ' +
          'default is 60)',
      ];
      return {
        lease: {
          durationMs: leaseS * 1000,
          heartbeatMs: requested.heartbeatMs,
          extendByMs: leaseS * 1000,
          pollMs,
        },
        notes,
        rescaled: [
          {
            constant: 'least heartbeatSeconds',
            library: `${PG_BOSS_LEAST_HEARTBEAT_S} s (createQueue refuses less)`,
            run: `${leaseS} s`,
            statement: `UPDATE ${PG_BOSS_SCHEMA}.queue SET heartbeat_seconds after createQueue()`,
          },
        ],
      };
    },

    async setup(db, ctx) {
      await admin(version, await tools(), {
        op: 'setup',
        ...connection(ctx, 'setup'),
        queue: {
          expireInSeconds: PG_BOSS_DEFAULT_EXPIRE_S,
          retryLimit: PG_BOSS_DEFAULT_RETRY_LIMIT,
        },
      });
      const leaseS = heartbeatSeconds(ctx?.lease.durationMs ?? 1_000);
      await db.query(`UPDATE ${PG_BOSS_SCHEMA}.queue SET heartbeat_seconds = $1 WHERE name = $2`, [
        leaseS,
        PG_BOSS_QUEUE,
      ]);
    },

    teardown: (db) => pgBossQueue.teardown(db),

    async enqueue(_db, jobs, ctx) {
      // Ids chosen here, in order: pg-boss's own would come back in no promised order.
      const rows = jobs.map((job) => ({
        id: randomUUID(),
        data: job.payload,
        ...(job.maxAttempts !== undefined && { retryLimit: Math.max(0, job.maxAttempts - 1) }),
      }));
      await admin(version, await tools(), {
        op: 'enqueue',
        ...connection(ctx, 'enqueue'),
        jobs: rows,
      });
      return rows.map((row) => row.id);
    },
  };
  made.set(key, adapter);
  return adapter;
}

/** The pg-boss 12 native adapter, at the tested release (`--queue pg-boss@12`). */
export const pgBoss12Queue: QueueAdapter = pgBoss12QueueAt(PG_BOSS_12_VERSION, 'pg-boss@12');
