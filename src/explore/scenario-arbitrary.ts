/**
 * fast-check arbitraries of whole scenarios. Built from records, arrays and integers only, so
 * fast-check's own shrinking removes faults, moves them earlier, shortens them towards one
 * lease, and cuts workers, jobs and units — a failure shrinks to a schedule a person can read.
 */
import fc from 'fast-check';
import type { DrawnFault, DrawnHandler, ExploredScenario } from './explored-scenario.js';

const at = fc.integer({ min: 200, max: 1_500 });
const worker = fc.integer({ min: 1, max: 2 });
// Between one lease and two and a half: long enough to outlive a claim, short enough for a run
// of a few seconds.
const lasting = fc.integer({ min: 1_000, max: 2_500 });
// A pause that ends just after the deadline, inside the grace a lenient queue allows after it
// (the window of `grace-after-deadline`), drawn as often as one of any length.
const pauseLasting = fc.oneof(fc.integer({ min: 1_000, max: 1_400 }), lasting);

/**
 * One fault of the explored vocabulary: pause, partition (blackholed, reset or refused: the
 * last two make statements fail at once rather than time out), upstream latency (from a quarter
 * of a lease, which makes a two-statement write span a deadline, to two leases, which delivers a
 * heartbeat after another worker's takeover), stall, clock or crash.
 */
const FAULTS: Readonly<Record<DrawnFault['kind'], fc.Arbitrary<DrawnFault>>> = {
  pause: fc.record({ kind: fc.constant('pause'), atMs: at, worker, forPermille: pauseLasting }),
  partition: fc.record({
    kind: fc.constant('partition'),
    atMs: at,
    worker,
    direction: fc.constantFrom('both', 'upstream'),
    mode: fc.constantFrom('blackhole', 'reset', 'down'),
    forPermille: lasting,
  }),
  latency: fc.record({
    kind: fc.constant('latency'),
    atMs: at,
    worker,
    latencyPermille: fc.integer({ min: 250, max: 2_000 }),
    forPermille: lasting,
  }),
  stall: fc.record({ kind: fc.constant('stall'), atMs: at, worker, forPermille: lasting }),
  clock: fc.record({
    kind: fc.constant('clock'),
    atMs: at,
    worker,
    // Minutes of skew either way; never zero (a clock fault that skews nothing).
    offsetSeconds: fc
      .tuple(fc.boolean(), fc.integer({ min: 5, max: 5_400 }))
      .map(([behind, s]) => (behind ? -s : s)),
  }),
  crash: fc.record({
    kind: fc.constant('crash'),
    atMs: at,
    worker,
    restartAfterPermille: lasting,
  }),
};

/** Every fault kind explore draws, in the order fast-check tries them. */
export const ALL_FAULT_KINDS: readonly DrawnFault['kind'][] = [
  'pause',
  'partition',
  'latency',
  'stall',
  'clock',
  'crash',
];

/**
 * One fault of the explored vocabulary: pause, partition (blackholed, reset or refused: the
 * last two make statements fail at once rather than time out), upstream latency (from a quarter
 * of a lease, which makes a two-statement write span a deadline, to two leases, which delivers a
 * heartbeat after another worker's takeover), stall, clock or crash.
 */
export const faultArbitrary: fc.Arbitrary<DrawnFault> = faultArbitraryOf(ALL_FAULT_KINDS);

/** A fault of one of `kinds` (those a simulation models, say). */
export function faultArbitraryOf(kinds: readonly DrawnFault['kind'][]): fc.Arbitrary<DrawnFault> {
  if (kinds.length === 0) throw new Error('explore needs at least one fault kind to draw');
  return fc.oneof(...kinds.map((kind) => FAULTS[kind]));
}

const awaitedUnits = fc.record({
  units: fc.integer({ min: 2, max: 16 }),
  unitPermille: fc.integer({ min: 50, max: 150 }),
  sync: fc.constant(false),
});

/**
 * Handlers relative to the lease: many short awaited units (a job of up to about 2.4 leases that
 * a heartbeat must keep), or one or two long synchronous units (work that blocks the loop).
 */
export const handlerArbitrary: fc.Arbitrary<DrawnHandler> = handlerArbitraryOf(true);

/** Handlers as `handlerArbitrary` draws them, or (`sync` false) only the awaited ones. */
export function handlerArbitraryOf(sync: boolean): fc.Arbitrary<DrawnHandler> {
  if (!sync) return awaitedUnits;
  return fc.oneof(
    awaitedUnits,
    fc.record({
      units: fc.integer({ min: 1, max: 2 }),
      unitPermille: fc.integer({ min: 500, max: 1_500 }),
      sync: fc.constant(true),
    }),
  );
}

/**
 * A whole scenario: 2–4 workers, a 600–1200 ms lease, 2–8 jobs and 1–3 faults. The faults come
 * first: fast-check shrinks a record's fields in order, and every real run of a shrink step costs
 * seconds, so the steps that matter most — dropping a fault — are tried first.
 */
export const scenarioArbitrary: fc.Arbitrary<ExploredScenario> = scenarioArbitraryOf({
  faults: ALL_FAULT_KINDS,
  syncHandlers: true,
});

/** What a search may draw: some fault kinds, and whether handlers may block the loop. */
export interface DrawableScenarios {
  /** The fault kinds drawn. */
  faults: readonly DrawnFault['kind'][];
  /** Whether handlers of synchronous units are drawn. */
  syncHandlers: boolean;
}

/** Scenarios as `scenarioArbitrary` draws them, restricted to `what` (a simulation's reach, say). */
export function scenarioArbitraryOf(what: DrawableScenarios): fc.Arbitrary<ExploredScenario> {
  return fc.record({
    faults: fc.array(faultArbitraryOf(what.faults), { minLength: 1, maxLength: 3 }),
    handler: handlerArbitraryOf(what.syncHandlers),
    jobs: fc.integer({ min: 2, max: 8 }),
    workers: fc.integer({ min: 2, max: 4 }),
    leaseMs: fc.integer({ min: 6, max: 12 }).map((tenths) => tenths * 100),
    pollMs: fc.integer({ min: 30, max: 60 }),
  });
}
