/**
 * `tune --queue`: the sweep's best points simulated again against **the queue's own SQL** on
 * PGlite, in simulated time (`src/sim/pglite/`). The sweep itself runs on the reference lease
 * semantics in memory, fast enough for a grid; a user's queue may claim, fence, back off or
 * sweep otherwise, so the points it recommends are run once more through the adapter's claim,
 * extend, ack and fail, with leaseproof's real worker loop, the tune file's workload (the same
 * handler durations, Poisson arrivals, the fault rates drawn as a timeline) — and judged twice:
 * by the same figures and budgets as the sweep, and by the checkers, since a point whose run
 * breaks an invariant recommends nothing.
 *
 * What it cannot show, as every simulated run: row-lock races between concurrent transactions
 * (a transaction over several statements holds the one session until it ends), a queue in native
 * mode; a run its bound cut short is `unknown`. Each retry runs the job's own durations (the sweep draws anew).
 */
import { checkHistory } from '../checker/index.js';
import { deriveHistory } from '../history/derive.js';
import type { DerivedHistory } from '../history/derive-types.js';
import type { History } from '../history/types.js';
import type { QueueAdapter } from '../queue/types.js';
import { Random } from '../random.js';
import { drawDuration } from '../scenario/durations.js';
import { SimDatabase, SimulationLimitError } from '../sim/pglite/sim-database.js';
import { simulateRun, type SimFault, type SimRunPlan } from '../sim/pglite/sim-run.js';
import { SimulationBoundError } from '../sim/pglite/sim-bounds.js';
import { simHorizonMs, simResultOf } from '../sim/simulate.js';
import type { SimPoint, SimResult, Spread } from '../sim/sim-types.js';
import type { UnitPlan } from '../worker/types.js';
import { chooseBest, crashStalls } from './confirm.js';
import type { TuneSpec } from './load-tune.js';
import { fmt, overBudget, type SweepOutcome } from './sweep.js';

// Each simulated tune run's wall bound: ten minutes (see `simulateOnQueue`).
const TUNE_RUN_WALL_MS = 600_000;

const HOUR_MS = 3_600_000;

/** Options of `tune --queue`. */
export interface QueueSimOptions {
  /** The queue whose own SQL runs. */
  queue: QueueAdapter;
  /** Best points to simulate on it (one just outside the budget is added when there is one). */
  k: number;
  /** Jobs per point (default: the tune file's). */
  jobs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One of the sweep's points, simulated on the queue's own SQL. */
export interface QueuePoint {
  /** Index of the point in the sweep. */
  index: number;
  /** `best 1`, `best 2`, …, or `outside budget`. */
  label: string;
  /** The queue's name. */
  queue: string;
  /**
   * The figures of the queue's own run, as the sweep's (absent when it could not be simulated);
   * `steps` is NaN: the run is PGlite statements, not timers.
   */
  result?: SimResult;
  /** The budgets that run breaks, in words. */
  overBudget: string[];
  /** The checkers' verdict on the run, or `not simulated`. */
  verdict: 'valid' | 'invalid' | 'unknown' | 'not simulated';
  /** Each invalid invariant with its first evidence, or why the run could not be simulated. */
  findings: string[];
  /** Whether the point holds on this queue: valid and within every budget. */
  holds: boolean;
}

/** Simulates the chosen points of `outcome` on `options.queue`'s own SQL, one after another. */
export async function simulateOnQueue(
  spec: TuneSpec,
  outcome: SweepOutcome,
  options: QueueSimOptions,
): Promise<QueuePoint[]> {
  const chosen = chooseBest(outcome, options.k);
  if (chosen.length === 0) return [];
  const db = await SimDatabase.start();
  try {
    const out: QueuePoint[] = [];
    for (const { index, label } of chosen) {
      options.log?.(`${label}: point ${index + 1} on ${options.queue.name}'s own SQL (PGlite)…`);
      out.push(await simulateOne(db, spec, outcome, index, label, options));
    }
    return out;
  } finally {
    await db.stop();
  }
}

async function simulateOne(
  db: SimDatabase,
  spec: TuneSpec,
  outcome: SweepOutcome,
  index: number,
  label: string,
  options: QueueSimOptions,
): Promise<QueuePoint> {
  const point = outcome.points[index]!.result.point;
  // A tune run simulates thousands of jobs: more wall time than a scenario's run (a 287 s
  // simulated run took over 30 s on a loaded machine), still bounded.
  const plan = {
    ...queueRunPlan(spec, point, options.queue, options.jobs ?? spec.workload.jobs),
    bounds: { wallMs: TUNE_RUN_WALL_MS },
  };
  const base = { index, label, queue: options.queue.name };
  const started = performance.now();
  let history: History;
  try {
    history = await simulateRun(db, plan);
  } catch (error) {
    if (error instanceof SimulationBoundError) {
      return {
        ...base,
        overBudget: [],
        verdict: 'unknown',
        findings: [error.message],
        holds: false,
      };
    }
    if (!(error instanceof SimulationLimitError)) throw error;
    return {
      ...base,
      overBudget: [],
      verdict: 'not simulated',
      findings: [error.message],
      holds: false,
    };
  }
  const wallMs = performance.now() - started;
  const checked = checkHistory(history);
  const findings = checked.results
    .filter((r) => r.valid !== 'valid')
    .map(
      (r) =>
        `${r.id} ${r.checker}: ${r.valid}${r.evidence[0] ? ` — ${r.evidence[0].message}` : ''}`,
    );
  const result = figuresOf(history, point, wallMs);
  const over = overBudget(result, spec.budgets);
  return {
    ...base,
    result,
    overBudget: over,
    verdict: checked.valid,
    findings,
    holds: checked.valid === 'valid' && over.length === 0,
  };
}

/**
 * The tune file's workload at `point` as a simulation plan: `jobs` jobs of drawn durations
 * arriving as a Poisson process at the file's rate (all at once without one), the fault rates
 * drawn as a timeline per worker (a crash not before the last one's restart: a crashed worker
 * cannot crash again), each partition a blackhole both ways. Deterministic for the file's seed.
 */
export function queueRunPlan(
  spec: TuneSpec,
  point: SimPoint,
  queue: QueueAdapter,
  jobs: number,
): SimRunPlan {
  const random = new Random(spec.seed);
  const { handler, workload, faults: f } = spec;
  const plans: UnitPlan[][] = Array.from({ length: jobs }, () => {
    const total = drawDuration(handler.duration, random);
    const units = Math.max(1, handler.units);
    return Array.from({ length: units }, () => ({ ms: total / units, sync: false, effect: false }));
  });
  const exponential = (meanMs: number): number => -Math.log(1 - random.next()) * meanMs;
  const rate = workload.arrivalsPerSecond;
  let at = 0;
  const arrivalsMs =
    rate === undefined
      ? undefined
      : plans.map((_, i) => (i === 0 ? 0 : (at += exponential(1000 / rate))));
  const horizonMs = simHorizonMs(
    plans,
    arrivalsMs?.at(-1) ?? 0,
    { rttMs: workload.rttMs, workers: workload.workers, faults: f },
    point,
  );
  const faults: SimFault[] = [];
  for (let w = 1; w <= workload.workers; w += 1) {
    const worker = `w${w}`;
    const timeline = (perHour: number, strike: (atMs: number) => SimFault | undefined): void => {
      if (perHour <= 0) return;
      for (
        let t = exponential(HOUR_MS / perHour);
        t < horizonMs;
        t += exponential(HOUR_MS / perHour)
      ) {
        const fault = strike(t);
        if (fault !== undefined) faults.push(fault);
      }
    };
    let upAgain = 0;
    timeline(f.crashesPerWorkerHour, (atMs) => {
      if (atMs < upAgain) return undefined;
      upAgain = atMs + f.restartAfterMs;
      return { kind: 'crash', worker, atMs, forMs: f.restartAfterMs };
    });
    timeline(f.pausesPerWorkerHour, (atMs) => ({
      kind: 'pause',
      worker,
      atMs,
      forMs: drawDuration(f.pause, random),
    }));
    timeline(f.partitionsPerWorkerHour, (atMs) => ({
      kind: 'partition',
      worker,
      atMs,
      forMs: drawDuration(f.partition, random),
      mode: 'blackhole',
      direction: 'both',
    }));
  }
  faults.sort((a, b) => a.atMs - b.atMs);
  return {
    scenario: `tune-${spec.name}-lease-${point.leaseMs}ms`,
    seed: spec.seed,
    queue,
    workers: workload.workers,
    lease: {
      durationMs: point.leaseMs,
      heartbeatMs: point.heartbeatMs ?? point.leaseMs,
      extendByMs: point.extendByMs,
      pollMs: point.pollMs,
    },
    plans,
    ...(arrivalsMs !== undefined && { arrivalsMs }),
    faults,
    rttMs: workload.rttMs,
    horizonMs,
    maxAttempts: workload.maxAttempts,
    allowDeadLetter: true,
  };
}

/**
 * The sweep's figures, measured on a run's history: an execution is a claim under which work
 * was done; a duplicate follows a claim whose holder was under a fault (crash, pause,
 * partition) between its grant and its loss, or not (the handler outlasted the lease); the
 * crash stall runs from a crash of a worker holding a job to that job's next grant; heartbeat
 * writes are the extension statements the workers sent.
 */
export function figuresOf(history: History, point: SimPoint, wallMs: number): SimResult {
  const d = deriveHistory(history);
  const jobs = d.jobs.size;
  let completed = 0;
  let dead = 0;
  let duplicates = 0;
  let duplicatedJobs = 0;
  let faultDuplicates = 0;
  let unexplained = 0;
  for (const job of d.jobs.values()) {
    if (job.completed) completed += 1;
    else if (job.state === 'dead') dead += 1;
    const executed = job.claims.filter((c) => c.executed);
    if (executed.length > 1) duplicatedJobs += 1;
    executed.forEach((claim, i) => {
      if (i === 0) return;
      duplicates += 1;
      const previous = executed[i - 1]!;
      const until = Number.isNaN(previous.expiredAt) ? claim.grantT : previous.expiredAt;
      if (faulted(d, previous.worker, previous.grantT, until)) faultDuplicates += 1;
    });
    for (const claim of job.claims) {
      if (
        !Number.isNaN(claim.expiredAt) &&
        !faulted(d, claim.worker, claim.grantT, claim.expiredAt)
      )
        unexplained += 1;
    }
  }
  const stalls = crashStalls(d);
  const extensions = history.events.filter(
    (e) => e.type === 'worker' && e.kind === 'extend' && e.phase === 'invoke',
  ).length;
  return simResultOf({
    point,
    jobs,
    completed,
    dead,
    duplicates,
    duplicatedJobs,
    faultDuplicates,
    unexplained,
    stalls,
    extensions,
    workers: history.header.workers.length,
    simulatedMs: d.endT - history.header.startedAt,
    wallMs,
    steps: NaN,
  });
}

/** One line per simulated point, for the terminal. */
export function queuePointLine(q: QueuePoint, model: SimResult): string {
  const head = `${q.label} (point ${q.index + 1}) on ${q.queue}'s own SQL`;
  if (q.result === undefined) {
    return `${head}: ${q.verdict === 'unknown' ? 'unknown' : 'not simulated'} — ${q.findings.join('; ')}`;
  }
  const r = q.result;
  const stall = (s: Spread): string => (Number.isNaN(s.p99) ? '—' : `${fmt(s.p99)}ms`);
  const figures =
    `dup/1000 ${fmt(r.duplicatesPer1000)} (model ${fmt(model.duplicatesPer1000)}), ` +
    `p99 stall ${stall(r.crashStallMs)} (model ${stall(model.crashStallMs)}), ` +
    `hb writes/s ${fmt(r.heartbeatWritesPerSecond)} (model ${fmt(model.heartbeatWritesPerSecond)}), ` +
    `${r.jobs} jobs in ${(r.wallMs / 1000).toFixed(1)}s (${Math.round(r.jobs / (r.wallMs / 1000))} jobs/s)`;
  const judged =
    q.verdict === 'valid'
      ? q.overBudget.length === 0
        ? 'holds'
        : `over budget: ${q.overBudget.join('; ')}`
      : `${q.verdict.toUpperCase()}: ${q.findings.join('; ')}`;
  return `${head}: ${judged}\n    ${figures}`;
}

function faulted(d: DerivedHistory, worker: string, from: number, to: number): boolean {
  return (d.faultsByTarget.get(worker) ?? []).some((f) => f.start <= to && f.end >= from);
}
