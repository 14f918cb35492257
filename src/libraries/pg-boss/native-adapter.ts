/**
 * pg-boss under test in native mode: its own `work()` loop is the worker — its polling fetch,
 * its handler timeout (a job whose handler outlasts `expireInSeconds` is failed by the worker
 * while the handler runs on), its `complete()` and `fail()` — and its own supervisor expires
 * leases (`maintain()` → `expire()`, throttled across instances by `maintained_on`), run in each
 * worker process by `src/native/targets/pg-boss-target.ts` through the worker's proxy. The
 * controller installs, enqueues and tears down as the primitives adapter (`pg-boss`) does; the
 * audit reads the lease in the same place. Its settings are pg-boss 10's (`settings.ts`), settled
 * once per run and handed to each worker process (`WorkerConfig.settings`).
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter } from '../../queue/types.js';
import type { SettledSettings } from '../../queue/library-settings.js';
import { libraryVersion } from '../load-library.js';
import { PG_BOSS, pgBossQueue } from './adapter.js';
import { PG_BOSS_10_SETTINGS, pgBoss10Value } from './settings.js';
import { nodeNativeProgram } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';

/** The pg-boss 10 native adapter. */
export const pgBossNativeQueue: QueueAdapter = {
  name: 'pg-boss-native',
  description:
    'pg-boss 10 through its own work() loop and supervisor: its fetch, handler timeout, ' +
    'complete / fail and expire(); lease = expireInSeconds, no lease extension; its settings ' +
    'compressed by one factor.',
  audit: pgBossQueue.audit,
  get limits() {
    return programClockLimits();
  },
  contract: pgBossQueue.contract!,
  settings: PG_BOSS_10_SETTINGS,

  ...nativeOnlyPrimitives('pg-boss-native'),
  native: {
    description:
      'pg-boss work(batchSize 1, pollingIntervalSeconds as settled) and a supervisor ' +
      '(maintenanceIntervalSeconds as settled) in every worker process, on the worker’s proxy',
    extendsLease: false,
    program: () => nodeNativeProgram('pg-boss'),
    sweep: {
      description:
        "pg-boss's supervisor expire() returns an active job past started_on + expire_in to " +
        'retry; each worker runs the supervisor every maintenanceIntervalSeconds, and pg-boss ' +
        'lets one pass run per interval across them (maintained_on): the longest wait is two ' +
        'intervals',
      intervalMs: (lease: LeaseSettings, settings?: SettledSettings) =>
        2 * pgBoss10Value('maintenanceIntervalSeconds', lease, settings),
    },
  },

  leaseTerms(requested: LeaseSettings, settings?: SettledSettings) {
    const base = pgBossQueue.leaseTerms!(requested, settings);
    const maintenanceMs = pgBoss10Value('maintenanceIntervalSeconds', requested, settings);
    return {
      lease: {
        ...base.lease,
        heartbeatMs: base.lease.durationMs,
        extendByMs: base.lease.durationMs,
      },
      notes: [
        `pg-boss ${libraryVersion(PG_BOSS)}, native mode: its own work() loop and supervisor`,
        ...base.notes.slice(1),
        "pg-boss has no heartbeat: the scenario's heartbeat is not pg-boss's to take",
        'a handler that outlasts expireInSeconds is failed by its own worker (a timeout in ' +
          'work()), while it runs on: pg-boss does not stop it',
        'the supervisor runs in a pg-boss instance of its own in each worker process (its ' +
          'connections named <worker>:sweep, so its expire() is read as a sweep), every ' +
          `${String(maintenanceMs)} ms (maintenanceIntervalSeconds)`,
      ],
      rescaled: [],
    };
  },

  setup: (db, ctx) => pgBossQueue.setup(db, ctx),
  teardown: (db) => pgBossQueue.teardown(db),
  enqueue: (db, jobs, ctx) => pgBossQueue.enqueue(db, jobs, ctx),
};
