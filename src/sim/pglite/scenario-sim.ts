/**
 * A scenario's run plan as a simulation plan: the same workers, lease, handler plans and fault
 * timeline, for `simulateRun`. A part of the plan the simulation cannot model is refused with a
 * `SimulationLimitError` that names it — a bandwidth limit or a sliced stream, a stalled event
 * loop, a database restart — and is left to real runs.
 */
import type { ClockSpec } from '../../nemesis/fault-spec.js';
import type { RunPlan } from '../../scenario/execute-run.js';
import type { QueueAdapter } from '../../queue/types.js';
import { SimulationLimitError } from './sim-database.js';
import type { SimFault, SimRunPlan } from './sim-run.js';

/** The fault kinds the simulation models; every other kind is refused and left to real runs. */
export const SIMULATED_FAULT_KINDS = ['crash', 'pause', 'partition', 'latency', 'clock'] as const;

// Why each fault the simulation leaves to real runs is left there.
const NOT_SIMULATED: Readonly<Record<string, string>> = {
  bandwidth: 'a bandwidth limit is not modelled: the link has one round trip',
  slicer: 'a sliced byte stream is not modelled: the link has one round trip',
  stop: 'a graceful stop is not modelled: a simulated worker has no shutdown path (SIGTERM, its timeout, its exit)',
  stall: 'a blocked event loop is not modelled: a worker has no CPU to starve',
  'db-restart': 'a database restart is not modelled: PGlite is one session, never restarted',
};

/**
 * What the simulation runs of `plan` other than as it would really happen, though it runs it: a
 * synchronous unit is simulated as a wait, so a blocked event loop — and a heartbeat that shares
 * it — is not modelled. Empty when the simulation models the plan as it is.
 */
export function simApproximations(plan: RunPlan): string[] {
  return plan.plans.some((units) => units.some((u) => u.sync))
    ? [
        'a synchronous unit runs as a wait: a blocked event loop, and a heartbeat on it, is not modelled',
      ]
    : [];
}

/** `plan` for `simulateRun` against `queue`, or a `SimulationLimitError` saying what is not modelled. */
export function simPlanOf(plan: RunPlan, queue: QueueAdapter): SimRunPlan {
  const refuse = (why: string): never => {
    throw new SimulationLimitError(`${plan.scenario}: ${why}; run it for real`);
  };
  if (queue.native !== undefined) {
    refuse(
      `queue "${queue.name}" runs its library's own worker loop in a program of its own: the ` +
        "simulation runs leaseproof's loop over the adapter's statements only",
    );
  }
  if (plan.ignoresAbort === true) {
    refuse(
      'a handler that ignores its cancellation is not modelled: the simulated handler stops at ' +
        'its next unit',
    );
  }
  // A fault that lasts "until the timeline is done" heals when the last fault has.
  const timelineEnd = Math.max(
    0,
    ...plan.faults.map((f) => f.atMs + ('forMs' in f ? (f.forMs ?? 0) : 0)),
  );
  const faults: SimFault[] = plan.faults.flatMap((f): SimFault[] => {
    switch (f.kind) {
      case 'crash':
        return [
          { kind: 'crash', worker: f.worker, atMs: f.atMs, forMs: f.restartAfterMs ?? Infinity },
        ];
      case 'pause':
        return [
          { kind: 'pause', worker: f.worker, atMs: f.atMs, forMs: f.forMs ?? timelineEnd - f.atMs },
        ];
      case 'partition':
        return f.workers.map((worker) => ({
          kind: 'partition' as const,
          worker,
          atMs: f.atMs,
          forMs: f.forMs ?? timelineEnd - f.atMs,
          mode: f.mode,
          direction: f.direction,
        }));
      case 'latency':
        // Without `for`, a standing condition through the drain, as in a real run.
        return f.workers.map((worker) => ({
          kind: 'latency' as const,
          worker,
          atMs: f.atMs,
          forMs: f.forMs ?? Infinity,
          latencyMs: f.latencyMs,
          jitterMs: f.jitterMs,
          direction: f.direction,
        }));
      case 'clock':
        return clockFaults(f);
      default:
        return refuse(NOT_SIMULATED[f.kind] ?? `a ${f.kind} fault is not modelled`);
    }
  });
  return {
    scenario: plan.scenario,
    seed: plan.seed,
    queue,
    workers: plan.workers,
    lease: plan.lease,
    plans: plan.plans,
    // As a real run enqueues at a rate: job i at i / rate seconds.
    ...(plan.enqueueRatePerSecond !== undefined && {
      arrivalsMs: plan.plans.map((_, i) => (i * 1000) / plan.enqueueRatePerSecond!),
    }),
    faults,
    horizonMs: timelineEnd + plan.drainTimeoutMs,
    ...(plan.clock !== undefined && { clock: plan.clock }),
    ...(plan.maxAttempts !== undefined && { maxAttempts: plan.maxAttempts }),
    ...(plan.checkpoint === true && { checkpoint: true }),
    ...(plan.failAttempts !== undefined && { failAttempts: plan.failAttempts }),
    ...(plan.allowDeadLetter !== undefined && { allowDeadLetter: plan.allowDeadLetter }),
  };
}

/**
 * A clock fault as the real run sets it (`createFaults`): the skew at `atMs`, and a jump as a
 * second setting `afterMs` later whose offset carries the drift accrued until then; each heals
 * when the clock fault does.
 */
function clockFaults(spec: ClockSpec): SimFault[] {
  // Without `for`, a host whose clock is wrong: through the drain, as in a real run.
  const forMs = spec.forMs ?? Infinity;
  const driftPpm = spec.driftPpm ?? 0;
  const first: SimFault = {
    kind: 'clock',
    worker: spec.worker,
    atMs: spec.atMs,
    forMs,
    offsetMs: spec.offsetMs,
    driftPpm,
  };
  if (spec.jump === undefined) return [first];
  const { afterMs, byMs } = spec.jump;
  return [
    first,
    {
      ...first,
      atMs: spec.atMs + afterMs,
      forMs: Math.max(0, forMs - afterMs),
      offsetMs: spec.offsetMs + byMs + (driftPpm * afterMs) / 1e6,
    },
  ];
}
