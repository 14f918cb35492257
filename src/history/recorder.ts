/**
 * Gathers the history of one run on the database's clock.
 *
 * At the start it measures the controller-to-database clock offset; during the run it takes the
 * enqueued jobs, the nemesis's faults and the workers' events (all timed on the controller's
 * host, moved onto the database clock by that offset); at the end it reads the truth the
 * database recorded — the audit trigger's transitions and the handlers' effects — and merges
 * everything into one history ordered by `t`.
 *
 * A run: `start` → install the audit trigger and enqueue (`prepareAuditedQueue`) → `recordJobs`
 * → start the pool with `onEvent: recorder.onWorkerEvent` → faults via `recordNemesis` → drain,
 * stop the pool → `finish`.
 */
import { MAINTENANCE_APP, type SweepPass } from '../pool/maintenance-loop.js';
import { withRunClient } from '../pool/queue-database.js';
import type { ReceivedEvent } from '../pool/worker-process.js';
import type { SqlClient } from '../queue/types.js';
import { VERSION } from '../version.js';
import type { UnitPlan } from '../worker/types.js';
import { readAuditEvents } from './audit-reader.js';
import { measureClockOffset } from './clock-offset.js';
import { readEffectEvents } from './effects-reader.js';
import { orderEvents } from './order-events.js';
import type { HistoryRecorderOptions, NemesisRecord } from './recorder-options.js';
import {
  HISTORY_VERSION,
  type History,
  type HistoryEvent,
  type HistoryHeader,
  type JobEvent,
  type NemesisEvent,
  type WorkerHistoryEvent,
} from './types.js';
import { workerHistoryEvent } from './worker-events.js';

const DATABASE_NOW = 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t';

/** Records one run's history; see the module comment for the order of calls. */
export class HistoryRecorder {
  private readonly jobs: JobEvent[] = [];
  private readonly nemesis: NemesisEvent[] = [];
  private readonly workerEvents: WorkerHistoryEvent[] = [];
  // The pool replays a worker's earlier events to `onEvent` and also returns them from
  // `events()`: taking both must not record an event twice.
  private readonly seen = new WeakSet<ReceivedEvent>();
  private finishing: Promise<History> | undefined;

  private constructor(
    private readonly options: HistoryRecorderOptions,
    /** The header, complete from the start. */
    readonly header: HistoryHeader,
  ) {}

  /** Measures the clock offset and reads the versions; call it before the jobs are enqueued. */
  static async start(options: HistoryRecorderOptions): Promise<HistoryRecorder> {
    const { offset, postgres, startedAt } = await withRunClient(options.database, async (c) => ({
      offset: await measureClockOffset(c),
      postgres: await serverVersion(c),
      startedAt: await databaseNow(c),
    }));
    const toxiproxy =
      options.toxiproxyVersion ?? (await options.env?.describe())?.toxiproxyVersion ?? 'unknown';
    const header: HistoryHeader = {
      type: 'header',
      version: HISTORY_VERSION,
      scenario: options.scenario,
      seed: options.seed,
      queue: options.queue,
      versions: { leaseproof: VERSION, postgres, toxiproxy, node: process.version },
      lease: { ...options.lease },
      workers: [...options.workers],
      clockOffsetMs: offset.offsetMs,
      clockUncertaintyMs: offset.uncertaintyMs,
      startedAt,
      ...(options.allowDeadLetter !== undefined && { allowDeadLetter: options.allowDeadLetter }),
      ...(options.failAttempts !== undefined &&
        options.failAttempts > 0 && { failAttempts: options.failAttempts }),
      ...(options.queueTerms !== undefined && { queueTerms: options.queueTerms }),
    };
    return new HistoryRecorder(options, header);
  }

  /** Controller-to-database clock offset in ms (controller − database). */
  get clockOffsetMs(): number {
    return this.header.clockOffsetMs;
  }

  /**
   * Records the enqueued jobs with their handler plans (`ids[i]` runs `plans[i]`). A job's time
   * is that of its insert in the audit when there is one (finish fills it in), else the
   * database's clock now.
   */
  async recordJobs(ids: readonly string[], plans: readonly (readonly UnitPlan[])[]): Promise<void> {
    this.assertRecording('recordJobs');
    if (ids.length !== plans.length) {
      throw new RangeError(`recordJobs: ${ids.length} job ids but ${plans.length} plans`);
    }
    const t = await withRunClient(this.options.database, databaseNow);
    ids.forEach((job, i) => {
      const units = plans[i] ?? [];
      const maxUnitMs = units.reduce((max, u) => Math.max(max, u.ms), 0);
      const totalMs = units.reduce((sum, u) => sum + u.ms, 0);
      const blocks = units.some((u) => u.sync);
      this.jobs.push({
        type: 'job',
        t,
        job,
        units: units.length,
        maxUnitMs,
        totalMs,
        ...(blocks && { blocks: true as const }),
      });
    });
  }

  /** Records a fault starting or ending (controller-timed; moved onto the database clock). */
  recordNemesis(record: NemesisRecord): void {
    this.assertRecording('recordNemesis');
    const { at = Date.now(), ...rest } = record;
    this.nemesis.push({ type: 'nemesis', t: at - this.clockOffsetMs, ...rest });
  }

  /**
   * Records one pass of the harness-run sweep as a `sweep` event of `leaseproof-maintenance`
   * (its `application_name`, so its writes in the audit and its passes share a name): `t` when
   * it ended, `invokedT` when it started, `ms` how late it started. A worker-shaped event
   * rather than a `starved` one: every pass is recorded, on time or not, because I8 needs the
   * sweep's actual cadence — which pass was the first after an expiry — not only its delays.
   * Passes after `finish` are dropped, like late worker events.
   */
  recordSweep(pass: SweepPass): void {
    if (this.finishing !== undefined) return;
    const lateMs = Math.max(0, pass.startedAt - pass.scheduledAt);
    this.workerEvents.push({
      type: 'worker',
      t: pass.endedAt - this.clockOffsetMs,
      worker: MAINTENANCE_APP,
      kind: 'sweep',
      invokedT: pass.startedAt - this.clockOffsetMs,
      ms: lateMs,
      detail: `sweep pass ran ${lateMs}ms late and took ${pass.endedAt - pass.startedAt}ms`,
    });
  }

  /**
   * Takes one worker event; pass it as the pool's `onEvent`. Events arriving after `finish` are
   * dropped rather than thrown on: this runs inside the pool's event emitter.
   */
  readonly onWorkerEvent = (received: ReceivedEvent): void => {
    if (this.finishing !== undefined || this.seen.has(received)) return;
    this.seen.add(received);
    this.workerEvents.push(workerHistoryEvent(received, this.clockOffsetMs));
  };

  /** Takes worker events in bulk, e.g. `pool.events()` after the run; duplicates are ignored. */
  recordWorkerEvents(events: Iterable<ReceivedEvent>): void {
    this.assertRecording('recordWorkerEvents');
    for (const received of events) this.onWorkerEvent(received);
  }

  /**
   * Reads the audit and the effects, merges everything, and ends the history. Call it after the
   * pool has stopped, so the workers' last events are in. Calling it again returns the same
   * history.
   */
  finish(result: { drained: boolean; cut?: boolean }): Promise<History> {
    this.finishing ??= this.read(result.drained, result.cut === true);
    return this.finishing;
  }

  /** `cut`: the run was interrupted; the history gets no `end` event, so it reads as cut. */
  private async read(drained: boolean, cut: boolean): Promise<History> {
    const { audit, effects, now } = await withRunClient(this.options.database, async (c) => ({
      audit: await readAuditEvents(c),
      effects: await readEffectEvents(c),
      now: await databaseNow(c),
    }));
    const inserted = new Map<string, number>();
    for (const e of audit) if (e.op === 'insert' && !inserted.has(e.job)) inserted.set(e.job, e.t);
    const jobs = this.jobs.map((j) => ({ ...j, t: inserted.get(j.job) ?? j.t }));
    const events: HistoryEvent[] = orderEvents([
      jobs,
      this.nemesis,
      audit,
      effects,
      this.workerEvents,
    ]);
    // The end is the last event by definition; a worker event placed a hair later by the clock
    // offset's uncertainty must not put it anywhere else.
    const last = events.length === 0 ? now : events[events.length - 1]!.t;
    if (!cut) events.push({ type: 'end', t: Math.max(now, last), drained });
    return { header: this.header, events };
  }

  private assertRecording(what: string): void {
    if (this.finishing !== undefined) {
      throw new Error(`HistoryRecorder.${what}: the history is already finished`);
    }
  }
}

async function databaseNow(client: SqlClient): Promise<number> {
  const { rows } = await client.query<{ t: number }>(DATABASE_NOW);
  return Number(rows[0]?.t);
}

async function serverVersion(client: SqlClient): Promise<string> {
  const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
  return rows[0]?.server_version ?? 'unknown';
}
