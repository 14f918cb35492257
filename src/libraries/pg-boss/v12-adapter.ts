/**
 * pg-boss 12 under test in native mode (`--queue pg-boss@12`): its own `work()` loop under Node 22
 * (`src/native/targets/pg-boss-12-target.ts`), with the pg-boss release pinned below installed on
 * first need into `.tools/npm/pg-boss@<version>` and Node 22 into `.tools/node22` — never into the
 * project's node_modules, which keep pg-boss 10 (the `pg-boss` and `pg-boss-native` queues).
 *
 * What 12 changes for a lease, all used here:
 * - a job heartbeat (12.12, #716), off by default: with `heartbeatSeconds` on the queue, `work()`
 *   touches the job's `heartbeat_on` every `heartbeatRefreshSeconds` (by default half of
 *   `heartbeatSeconds`) and the supervisor fails a job whose `heartbeat_on + heartbeat_seconds`
 *   has passed, as it fails one past `started_on + expire_seconds`;
 * - an AbortSignal per job (12.4, #622), aborted when the heartbeat finds the claim gone or the
 *   handler timeout passes; leaseproof's handler plan stops at its next unit when it is;
 * - `complete()` and `fail()` awaited (11.0), and fenced to the attempt the worker fetched
 *   (`id:retry_count`, #925), as is the heartbeat's `touch()`.
 *
 * Its settings are pg-boss 12's (`settings.ts`). At pg-boss's defaults a queue has no heartbeat,
 * so the scenario's lease is `expireInSeconds` and the lease is not extended; a user who states
 * `heartbeatSeconds` (`--setting heartbeatSeconds=30s`) runs the heartbeat deployment, where the
 * lease is the heartbeat's staleness and the expiry its cap, both compressed by the same factor.
 * pg-boss refuses a `heartbeatSeconds` below 10; then the queue's `heartbeat_seconds` is written
 * after `createQueue` (a rescaled constant, stated in every report).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNode22 } from '../../env/node22-install.js';
import { ensureNpmTools } from '../../env/npm-tools-install.js';
import type { PgBoss12Request } from './v12-terms.js';
import { AdapterError } from '../../queue/adapter-error.js';
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { SettledSettings } from '../../queue/library-settings.js';
import type { LeaseSettings, QueueAdapter, SetupContext } from '../../queue/types.js';
import {
  leaseSentence,
  PG_BOSS_12_SETTINGS,
  pgBoss12HasHeartbeat,
  pgBoss12Value,
  settledValues,
  wholeSeconds,
} from './settings.js';
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

/** pg-boss's least `heartbeatSeconds` (its attorney.js: "an integer >= 10"). */
const PG_BOSS_LEAST_HEARTBEAT_S = 10;

/**
 * pg-boss 12's own words for its contract: a job is failed when its monitor acts ("the monitor
 * will fail/retry the job"; detection is "heartbeatSeconds + up to monitorIntervalSeconds"), and
 * what it fences is the attempt, not the deadline.
 */
const PG_BOSS_12_FENCED_ONLY =
  'pg-boss 12 fails an expired or silent job when its monitor runs ("Actual detection time is ' +
  'heartbeatSeconds + up to monitorIntervalSeconds, since the monitor must run to observe a ' +
  'stale heartbeat"), and fences the attempt: "What the original worker cannot do is settle the ' +
  "retry: a worker's completion, failure and heartbeat only apply to the attempt it claimed, " +
  'identified by the job\'s retryCount" (https://github.com/timgit/pg-boss/blob/master/docs/api/' +
  'queues.md, "Heartbeat vs expiration")';

/** The lease of a caller that gives none (a unit test's setup): one second. */
const DEFAULT_LEASE: LeaseSettings = {
  durationMs: 1_000,
  heartbeatMs: 1_000,
  extendByMs: 1_000,
  pollMs: 500,
};

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
      'expireInSeconds, or heartbeatSeconds (extended by each heartbeat) when one is stated; its ' +
      'settings compressed by one factor.',
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
    settings: PG_BOSS_12_SETTINGS,
    contract: { fencedOnly: PG_BOSS_12_FENCED_ONLY },
    ...nativeOnlyPrimitives(name),
    native: {
      description:
        `pg-boss ${version} work(batchSize 1, pollingIntervalSeconds as settled, its default ` +
        'heartbeatRefreshSeconds) and a supervisor (superviseIntervalSeconds and ' +
        'monitorIntervalSeconds as settled) in every worker process, under Node 22, on the ' +
        'worker’s proxy',
      extendsLease: true,
      program: async () => nodeNativeProgram('pg-boss@12', await tools()),
      sweep: {
        description:
          "pg-boss's supervisor fails an active job past started_on + expire_seconds or " +
          'heartbeat_on + heartbeat_seconds back to retry; each worker runs it every ' +
          'superviseIntervalSeconds, and pg-boss lets one pass run per monitorIntervalSeconds ' +
          'across them: the longest wait is two of the longer interval',
        intervalMs: (lease: LeaseSettings, settings?: SettledSettings) =>
          2 *
          Math.max(
            pgBoss12Value('superviseIntervalSeconds', lease, settings),
            pgBoss12Value('monitorIntervalSeconds', lease, settings),
          ),
      },
    },

    leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
      const values = settledValues(PG_BOSS_12_SETTINGS, requested, settings);
      const beats = pgBoss12HasHeartbeat(values);
      const anchor = beats ? 'heartbeatSeconds' : 'expireInSeconds';
      // Both are whole seconds in pg-boss (int columns); the anchor is the scenario's lease.
      const leaseS = Math.max(1, wholeSeconds(requested.durationMs));
      const expireS = Math.max(
        1,
        wholeSeconds(pgBoss12Value('expireInSeconds', requested, settings)),
      );
      const pollMs = pgBoss12Value('pollingIntervalSeconds', requested, settings);
      const superviseMs = Math.max(
        pgBoss12Value('superviseIntervalSeconds', requested, settings),
        pgBoss12Value('monitorIntervalSeconds', requested, settings),
      );
      const notes = [
        `pg-boss ${version}, native mode under Node 22: its own work() loop and supervisor`,
        leaseSentence(settings, requested.durationMs, anchor),
        ...(leaseS * 1000 === requested.durationMs
          ? []
          : [
              `${anchor} is whole seconds: the scenario's ${requested.durationMs} ms lease ` +
                `was rounded up to ${leaseS * 1000} ms`,
            ]),
        `the worker polls every ${String(pollMs)} ms (pollingIntervalSeconds), not the ` +
          `scenario's ${String(requested.pollMs)} ms`,
        ...(beats
          ? [
              `the heartbeat's staleness is the lease: work() touches heartbeat_on every ` +
                `${String((leaseS * 1000) / 2)} ms (heartbeatRefreshSeconds, by default half of ` +
                `heartbeatSeconds); expireInSeconds (${String(expireS)} s here) caps a job's ` +
                'whole run',
              "pg-boss's heartbeat is a timer on the worker's event loop, and a heartbeat that " +
                'cannot reach the database aborts nothing',
            ]
          : [
              'pg-boss 12 has no heartbeat by default (heartbeatSeconds: "Default: none ' +
                '(disabled)"): the lease is expireInSeconds and is never extended; state ' +
                'heartbeatSeconds to run the heartbeat deployment',
              'a handler that outlasts expireInSeconds has its job failed and its signal ' +
                "aborted by its own worker; leaseproof's handler stops at its next unit",
            ]),
        'the supervisor runs in a pg-boss instance of its own in each worker process (its ' +
          'connections named <worker>:sweep, so its expiry is read as a sweep), every ' +
          `${String(superviseMs)} ms (superviseIntervalSeconds and monitorIntervalSeconds)`,
      ];
      return {
        lease: {
          durationMs: leaseS * 1000,
          heartbeatMs: beats ? (leaseS * 1000) / 2 : leaseS * 1000,
          extendByMs: leaseS * 1000,
          pollMs,
        },
        extendsLease: beats,
        notes,
        rescaled:
          beats && leaseS < PG_BOSS_LEAST_HEARTBEAT_S
            ? [
                {
                  constant: 'least heartbeatSeconds',
                  library: `${PG_BOSS_LEAST_HEARTBEAT_S} s (createQueue refuses less)`,
                  run: `${leaseS} s`,
                  statement: `UPDATE ${PG_BOSS_SCHEMA}.queue SET heartbeat_seconds after createQueue()`,
                },
              ]
            : [],
      };
    },

    async setup(db, ctx) {
      const lease = ctx?.lease ?? DEFAULT_LEASE;
      const values = settledValues(PG_BOSS_12_SETTINGS, lease, ctx?.settings);
      await admin(version, await tools(), {
        op: 'setup',
        ...connection(ctx, 'setup'),
        queue: {
          expireInSeconds: Math.max(1, wholeSeconds(values.expireInSeconds!)),
          retryLimit: values.retryLimit!,
          // pg-boss's default: a retry is due at once (see settings.ts).
          retryDelay: 0,
        },
      });
      if (pgBoss12HasHeartbeat(values)) {
        const heartbeatS = Math.max(1, wholeSeconds(lease.durationMs));
        await db.query(
          `UPDATE ${PG_BOSS_SCHEMA}.queue SET heartbeat_seconds = $1 WHERE name = $2`,
          [heartbeatS, PG_BOSS_QUEUE],
        );
      }
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
