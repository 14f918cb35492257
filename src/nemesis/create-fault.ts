import type { TimedFault } from './types.js';
import { BandwidthFault } from './bandwidth-fault.js';
import { ClockFault } from './clock-fault.js';
import { CrashFault } from './crash-fault.js';
import { CrashRestartFault } from './crash-restart-fault.js';
import { DbRestartFault } from './db-restart-fault.js';
import type { ClockSpec, FaultSpec } from './fault-spec.js';
import { LatencyFault } from './latency-fault.js';
import { PartitionFault } from './partition-fault.js';
import { PauseFault } from './pause-fault.js';
import { SlicerFault } from './slicer-fault.js';
import { StallFault } from './stall-fault.js';
import { StopFault } from './stop-fault.js';

/**
 * Maps a fault as a scenario states it to the faults the timeline runs: one per worker for a
 * fault on several workers, and a second clock fault for a clock's jump. Each call makes new
 * fault objects (a fault is started and healed once): the executor calls it for every run.
 */
export function createFault(spec: FaultSpec): TimedFault[] {
  const timed = (fault: TimedFault['fault'], forMs = lasting(spec)): TimedFault => ({
    atMs: spec.atMs,
    ...(forMs !== undefined && { forMs }),
    fault,
  });
  switch (spec.kind) {
    case 'partition':
      return spec.workers.map((w) => timed(new PartitionFault(w, spec.mode, spec.direction)));
    case 'latency':
      return spec.workers.map((w) =>
        timed(new LatencyFault(w, spec.latencyMs, spec.jitterMs, spec.direction)),
      );
    case 'bandwidth':
      return spec.workers.map((w) => timed(new BandwidthFault(w, spec.rateKBps, spec.direction)));
    case 'slicer':
      return spec.workers.map((w) => {
        const { averageSize, sizeVariation, delayMs } = spec;
        return timed(new SlicerFault(w, { averageSize, sizeVariation, delayMs }, spec.direction));
      });
    case 'pause':
      return [timed(new PauseFault(spec.worker))];
    case 'crash':
      // Without a restart the worker stays dead; the crash is over only when the run is.
      return spec.restartAfterMs === undefined
        ? [timed(new CrashFault(spec.worker))]
        : [timed(new CrashRestartFault(spec.worker, spec.restartAfterMs), spec.restartAfterMs)];
    case 'stop':
      // Like a crash: down from its exit until a restart, or until the run is over.
      return [
        timed(new StopFault(spec.worker, spec.timeoutMs, spec.restartAfterMs), spec.restartAfterMs),
      ];
    case 'clock':
      return clockFaults(spec);
    case 'stall':
      return [timed(new StallFault(spec.worker, spec.forMs))];
    case 'db-restart':
      // Not timed: it ends itself once the database is back (see DbRestartFault).
      return [{ atMs: spec.atMs, fault: new DbRestartFault(spec.mode, spec.forMs ?? 0) }];
  }
}

/** Maps every spec of a timeline, in order. */
export function createFaults(specs: readonly FaultSpec[]): TimedFault[] {
  return specs.flatMap(createFault);
}

function lasting(spec: FaultSpec): number | undefined {
  return 'forMs' in spec ? spec.forMs : undefined;
}

/**
 * A clock with a jump is two settings of the skew: the offset at `atMs`, then offset + step
 * `afterMs` later, both healing when the clock fault would. A new setting restarts the drift,
 * so the drift accrued until the jump is carried into its offset.
 */
function clockFaults(spec: ClockSpec): TimedFault[] {
  const drift = spec.driftPpm ?? 0;
  const first: TimedFault = {
    atMs: spec.atMs,
    ...(spec.forMs !== undefined && { forMs: spec.forMs }),
    fault: new ClockFault(spec.worker, spec.offsetMs, drift),
  };
  if (spec.jump === undefined) return [first];
  const { afterMs, byMs } = spec.jump;
  const offset = spec.offsetMs + byMs + (drift * afterMs) / 1e6;
  return [
    first,
    {
      atMs: spec.atMs + afterMs,
      ...(spec.forMs !== undefined && { forMs: Math.max(0, spec.forMs - afterMs) }),
      fault: new ClockFault(spec.worker, offset, drift),
    },
  ];
}
