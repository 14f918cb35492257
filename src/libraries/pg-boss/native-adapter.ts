/**
 * pg-boss under test in native mode: its own `work()` loop is the worker — its polling fetch,
 * its handler timeout (a job whose handler outlasts `expireInSeconds` is failed by the worker
 * while the handler runs on), its `complete()` and `fail()` — and its own supervisor expires
 * leases (`maintain()` → `expire()`, throttled across instances by `maintained_on`), run in each
 * worker process by `src/native/targets/pg-boss-target.ts` through the worker's proxy. The
 * controller installs, enqueues and tears down as the primitives adapter (`pg-boss`) does; the
 * audit reads the lease in the same place.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter } from '../../queue/types.js';
import { libraryVersion } from '../load-library.js';
import { PG_BOSS, pgBossQueue } from './adapter.js';
import { nodeNativeProgram } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';

/** pg-boss's least `pollingIntervalSeconds` (its attorney.js, MIN_POLLING_INTERVAL_MS). */
const LEAST_POLL_MS = 500;

/** pg-boss's least `maintenanceIntervalSeconds`, the supervisor's timer here. */
const MAINTENANCE_MS = 1_000;

/** The pg-boss 10 native adapter. */
export const pgBossNativeQueue: QueueAdapter = {
  name: 'pg-boss-native',
  description:
    'pg-boss 10 through its own work() loop and supervisor: its fetch, handler timeout, ' +
    'complete / fail and expire(); lease = expireInSeconds, no lease extension.',
  audit: pgBossQueue.audit,
  get limits() {
    return programClockLimits();
  },
  contract: pgBossQueue.contract!,

  ...nativeOnlyPrimitives('pg-boss-native'),
  native: {
    description:
      'pg-boss work(batchSize 1, pollingIntervalSeconds = max(poll, 0.5 s)) and a supervisor ' +
      '(maintenanceIntervalSeconds 1) in every worker process, on the worker’s proxy',
    extendsLease: false,
    program: () => nodeNativeProgram('pg-boss'),
    sweep: {
      description:
        "pg-boss's supervisor expire() returns an active job past started_on + expire_in to " +
        'retry; each worker runs the supervisor every second, and pg-boss lets one pass run ' +
        'per maintenanceIntervalSeconds across them (maintained_on): the longest wait is two ' +
        'intervals',
      intervalMs: () => 2 * MAINTENANCE_MS,
    },
  },

  leaseTerms(requested: LeaseSettings) {
    const base = pgBossQueue.leaseTerms!(requested);
    const pollMs = Math.max(LEAST_POLL_MS, requested.pollMs);
    return {
      lease: {
        ...base.lease,
        heartbeatMs: base.lease.durationMs,
        extendByMs: base.lease.durationMs,
        pollMs,
      },
      notes: [
        `pg-boss ${libraryVersion(PG_BOSS)}, native mode: its own work() loop and supervisor`,
        ...base.notes.slice(1),
        ...(pollMs === requested.pollMs
          ? []
          : [
              `pg-boss polls at least every 500 ms (pollingIntervalSeconds): the scenario's ` +
                `${requested.pollMs} ms poll is ${pollMs} ms`,
            ]),
        "pg-boss has no heartbeat: the scenario's heartbeat is not pg-boss's to take",
        'a handler that outlasts expireInSeconds is failed by its own worker (a timeout in ' +
          'work()), while it runs on: pg-boss does not stop it',
        'the supervisor runs in a pg-boss instance of its own in each worker process (its ' +
          'connections named <worker>:sweep, so its expire() is read as a sweep), every ' +
          'second (maintenanceIntervalSeconds, the least pg-boss allows; its default is 120)',
      ],
      rescaled: [],
    };
  },

  setup: (db, ctx) => pgBossQueue.setup(db, ctx),
  teardown: (db) => pgBossQueue.teardown(db),
  enqueue: (db, jobs, ctx) => pgBossQueue.enqueue(db, jobs, ctx),
};
