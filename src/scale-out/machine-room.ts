/**
 * Admission by CPU pressure: `--parallel N` is a ceiling, not a promise. A run is a handful of
 * worker processes, each with a heartbeat thread and a loader thread, beside PostgreSQL and
 * Toxiproxy; while its faults strike it needs about a core, and its start-up (forking and
 * loading every worker) more. A second run started while the CPUs are already contended turns
 * heartbeats late, and late heartbeats turn verdicts `unknown` — or, where a rule is missing, into
 * false alarms. So a new run beside others starts only while the machine's CPU pressure (PSI
 * `some avg10`: the share of the last 10 s in which some task waited for a CPU) is under
 * `threshold`, and not sooner than `spacingMs` after the previous start, whose load PSI has not
 * had time to show. The first run always starts: under someone else's load leaseproof still
 * progresses, one run at a time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { readCpuPressure, type CpuPressure } from '../env/cpu-pressure.js';

/** How admission decides. */
export interface MachineRoomOptions {
  /** PSI `some avg10` (percent) at or above which no further run starts. Default 40. */
  threshold?: number;
  /** Least time between two starts, ms. Default 5 s. */
  spacingMs?: number;
  /** How often pressure is read while waiting, ms. Default 500. */
  pollMs?: number;
  /** Reads the pressure (injectable for tests); undefined: no PSI here, admit by count alone. */
  read?: () => CpuPressure | undefined;
  /** Told once per wait that has to wait, with the pressure that made it. */
  onWait?: (pressure: CpuPressure) => void;
}

/** Default threshold: see the module comment and the README's figures. */
export const ROOM_THRESHOLD = 40;

/**
 * A gate for `runInLanes`' `room`: resolves when one more run may start beside `running` others.
 */
export function machineRoom(
  options: MachineRoomOptions = {},
): (running: () => number, signal?: AbortSignal) => Promise<void> {
  const threshold = options.threshold ?? ROOM_THRESHOLD;
  const spacingMs = options.spacingMs ?? 5_000;
  const pollMs = options.pollMs ?? 500;
  const read = options.read ?? readCpuPressure;
  let lastStart = -Infinity;
  return async (running, signal) => {
    let told = false;
    // `running` is asked again on every poll: when the others finish while this one waits on
    // someone else's load, it starts at once rather than waiting for the machine to calm down.
    while (running() > 0 && signal?.aborted !== true) {
      const wait = lastStart + spacingMs - performance.now();
      if (wait > 0) {
        await sleep(Math.min(wait, pollMs), undefined, { signal }).catch(() => undefined);
        continue;
      }
      const pressure = read();
      if (pressure === undefined || pressure.avg10 < threshold) break;
      if (!told) options.onWait?.(pressure);
      told = true;
      await sleep(pollMs, undefined, { signal }).catch(() => undefined);
    }
    lastStart = performance.now();
  };
}
