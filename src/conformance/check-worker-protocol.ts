/**
 * The worker protocol's conformance check: what any worker — leaseproof's Node worker over IPC, a
 * native program over JSON lines in any language — must do for the controller to drive and
 * believe it. One worker, one job, a fresh database, no faults but the ones checked: it says
 * `ready` in the controller's wire format; reports its clock on request (and a skew, where its
 * clock can be skewed); claims the job only after `go` and reports the claim, each unit and the
 * effect under the claim the audit recorded; reports a stall; is frozen by SIGSTOP itself (no
 * launcher in between) and runs on after SIGCONT; and on SIGTERM says `exit` and is gone. Event
 * times must be on the controller's monotonic clock.
 */
import { readFileSync } from 'node:fs';
import type { StartedEnvironment } from '../env/types.js';
import { prepareQueueAdapter } from '../libraries/load-adapter.js';
import { prepareAuditedQueue } from '../history/audited-queue.js';
import { readAuditEvents } from '../history/audit-reader.js';
import { unfinishedJobs, withRunClient } from '../pool/queue-database.js';
import { WorkerPool } from '../pool/worker-pool.js';
import type { StartedWorker } from '../pool/worker-process.js';
import type { QueueAdapter } from '../queue/types.js';
import { settleQueueTerms } from '../scenario/queue-terms.js';
import { monotonicNow, type WorkerEvent } from '../worker/types.js';
import {
  CONFORMANCE_LEASE,
  type ConformanceCheck,
  type ConformanceReport,
} from './check-primitives.js';

class CheckFailed extends Error {}

function expectThat(condition: boolean, detail: string): void {
  if (!condition) throw new CheckFailed(detail);
}

/** The process state letter of `pid` (`T`: stopped), from /proc; undefined where there is none. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Checks the workers of `queue` (built-in name or adapter path) against the worker protocol in a
 * fresh database of `env`. Never throws for what the worker does: that is a failed check.
 */
export async function checkWorkerProtocol(
  env: StartedEnvironment,
  queue: string,
): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  let adapter: QueueAdapter | undefined;
  let blocked: string | undefined;
  const report = (): ConformanceReport => ({
    queue,
    ...(adapter !== undefined && { name: adapter.name }),
    checks,
    passed: checks.every((c) => c.outcome !== 'fail'),
  });
  const check = async (
    name: string,
    body: () => Promise<string>,
    blocks = false,
  ): Promise<void> => {
    if (blocked !== undefined) {
      checks.push({ name, outcome: 'skip', detail: `not run: ${blocked}` });
      return;
    }
    try {
      checks.push({ name, outcome: 'pass', detail: await body() });
    } catch (error) {
      const detail = error instanceof CheckFailed ? error.message : `threw: ${String(error)}`;
      checks.push({ name, outcome: 'fail', detail });
      if (blocks) blocked = `"${name}" failed`;
    }
  };

  await check(
    'the queue loads and describes itself',
    async () => {
      adapter = await prepareQueueAdapter(queue);
      const mode = adapter.native === undefined ? "leaseproof's Node worker" : 'native program';
      return `"${adapter.name}" (${mode}): ${adapter.description}`;
    },
    true,
  );
  if (adapter === undefined) return report();
  const q = adapter;
  // A library's own settings at their defaults, settled for this lease, go to setup and to the
  // worker program as a run's do: a native program configures its library with them.
  const { lease, settings } = settleQueueTerms(q, CONFORMANCE_LEASE);
  const database = await env.createDatabase();
  let pool: WorkerPool | undefined;
  try {
    let job = '';
    await check(
      'setup and enqueue: one job of three units, the second with an effect',
      async () => {
        const units = [
          { ms: 40, sync: false, effect: false },
          { ms: 40, sync: false, effect: true },
          { ms: 40, sync: false, effect: false },
        ];
        [job = ''] = await prepareAuditedQueue(database, q, [{ payload: { units } }], {
          lease,
          ...(settings !== undefined && { settings }),
        });
        expectThat(job !== '', 'enqueue returned no id');
        return `job ${job}`;
      },
      true,
    );
    let worker: StartedWorker | undefined;
    const after = (index: number, kind: WorkerEvent['kind']) =>
      worker!.waitFor(
        (e) => e.kind === kind && worker!.events.findIndex((r) => r.event === e) >= index,
        10_000,
      );

    await check(
      'it starts, says ready in the wire format the controller speaks, and waits for go',
      async () => {
        pool = await WorkerPool.start({
          env,
          database,
          queue,
          workers: 1,
          lease,
          held: true,
          ...(settings !== undefined && { settings: settings.values }),
        });
        worker = pool.workers[0]!;
        const ready = worker.events.find((e) => e.event.kind === 'ready')!.event;
        expectThat(
          ready.kind === 'ready' && ready.pid === worker.pid,
          `ready names pid ${ready.kind === 'ready' ? ready.pid : '?'}, the process is ${worker.pid}: ` +
            'the worker must be the process the controller started (no launcher in between)',
        );
        await sleep(300);
        const claimed = worker.events.some((e) => e.event.kind === 'claim');
        expectThat(!claimed, 'it claimed before go');
        return `ready, pid ${worker.pid}; nothing claimed before go`;
      },
      true,
    );

    await check(
      'it reports its clock on request, with event times on the controller clock',
      async () => {
        const seen = worker!.events.length;
        worker!.reportClock();
        const { event } = await after(seen, 'clock');
        if (event.kind !== 'clock') throw new CheckFailed('no clock event');
        const skew = event.workerNow - Date.now();
        expectThat(
          Math.abs(skew) < 2_000,
          `its clock reads ${Math.round(skew)}ms off with no skew set`,
        );
        const lag = monotonicNow() - event.at;
        expectThat(
          lag >= -50 && lag < 2_000,
          `its event time is ${Math.round(lag)}ms from the controller's monotonic clock ` +
            '(a worker in another language stamps CLOCK_MONOTONIC; its transport moves it)',
        );
        return `clock ${Math.round(skew)}ms from the controller's, event ${Math.round(lag)}ms old`;
      },
    );

    if (q.limits?.clockSkew === false) {
      checks.push({
        name: 'a clock skew reaches the clock its code reads',
        outcome: 'skip',
        detail: `declared: ${q.limits.reason ?? 'its clock cannot be skewed'}`,
      });
    } else {
      await check('a clock skew reaches the clock its code reads', async () => {
        const hour = 3_600_000;
        const seen = worker!.events.length;
        worker!.setClock({ offsetMs: hour });
        const { event } = await after(seen, 'clock');
        if (event.kind !== 'clock') throw new CheckFailed('no clock event');
        const skew = event.workerNow - Date.now();
        expectThat(
          Math.abs(skew - hour) < 2_000,
          `one hour set, its clock reads ${Math.round(skew)}ms ahead`,
        );
        const next = worker!.events.length;
        worker!.setClock({ offsetMs: 0 });
        await after(next, 'clock');
        return `its clock read ${Math.round(skew)}ms ahead, then real again`;
      });
    }

    await check(
      'after go it claims the job and reports the claim, each unit and the effect',
      async () => {
        worker!.release();
        const deadline = Date.now() + 15_000;
        for (;;) {
          const left = await withRunClient(database, (c) => unfinishedJobs(c, q));
          if (left === 0) break;
          expectThat(Date.now() < deadline, 'the job was not finished within 15 s');
          await sleep(100);
        }
        const events = worker!.events.map((e) => e.event);
        const claim = events.find((e) => e.kind === 'claim' && e.outcome === 'ok');
        expectThat(
          claim?.kind === 'claim' && claim.jobId === job,
          `no claim of job ${job} reported`,
        );
        const token = claim!.kind === 'claim' ? claim.token : undefined;
        const units = events.filter((e) => e.kind === 'unit' && e.jobId === job);
        expectThat(units.length === 3, `${units.length} unit events for 3 units`);
        const effect = events.find((e) => e.kind === 'effect' && e.jobId === job);
        expectThat(
          effect?.kind === 'effect' && effect.recorded && effect.unit === 1,
          'no recorded effect of unit 1',
        );
        const audit = await withRunClient(database, (c) => readAuditEvents(c));
        const grant = audit.find((e) => e.job === job && e.new?.state === 'held');
        expectThat(grant !== undefined, 'the audit recorded no grant of the job');
        expectThat(
          grant!.app === 'w1',
          `the grant was written by "${grant!.app}", not by the worker's connection (application_name w1)`,
        );
        expectThat(
          grant!.new!.holder === token || grant!.new!.holder === 'w1',
          `the claim names token ${String(token)}, the audit holder ${String(grant!.new!.holder)}`,
        );
        return `claim of job ${job} (holder ${String(grant!.new!.holder)}), 3 units, effect recorded`;
      },
    );

    await check('it reports a stall of its event loop', async () => {
      const seen = worker!.events.length;
      worker!.stall(100);
      const { event } = await after(seen, 'stall');
      expectThat(event.kind === 'stall' && event.ms === 100, 'the stall event does not say 100 ms');
      return 'stall of 100ms reported';
    });

    await check('SIGSTOP freezes the worker process itself, SIGCONT lets it run on', async () => {
      worker!.pause();
      await sleep(100);
      const state = processState(worker!.pid);
      worker!.resume();
      if (state === undefined) return 'not checked: no /proc here';
      expectThat(
        state === 'T' || state === 't',
        `after SIGSTOP its state is ${state}, not stopped`,
      );
      await sleep(100);
      const running = processState(worker!.pid);
      expectThat(running !== 'T' && running !== 't', 'still stopped after SIGCONT');
      return `state T while stopped, ${running ?? '?'} after`;
    });

    await check('on SIGTERM it says exit and is gone', async () => {
      const w = worker!;
      await w.stop(5_000);
      const exit = w.events.find((e) => e.event.kind === 'exit');
      expectThat(exit !== undefined, 'no exit event');
      expectThat(!w.running, 'still running');
      return `exit: ${exit!.event.kind === 'exit' ? exit!.event.reason : ''}`;
    });

    await check('it never broke the wire format or ended by itself', () => {
      const failure = pool!.workerFailure();
      expectThat(failure === undefined, failure?.message ?? '');
      return Promise.resolve('every message well formed');
    });
  } finally {
    await pool?.stop();
    await database.drop();
  }
  return report();
}
