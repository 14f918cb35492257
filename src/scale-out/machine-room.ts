/**
 * Admission by harness starvation: `--parallel N` is a ceiling, not a promise. A run is a
 * handful of worker processes, each with a heartbeat thread and a loader thread, beside
 * PostgreSQL and Toxiproxy. A machine busy draining jobs harms no verdict; a heartbeat thread
 * kept from running does — it turns timing verdicts `unknown`, or worse where a rule is missing.
 * So a new run beside others starts only once the run started before it has left setup (its
 * workers forked and ready: the costliest moment of a run, whose load has to have shown before
 * the gauge is read) and not sooner than `spacingMs` after that start, and only while no worker
 * of the runs under way has reported starvation of `starvedMs` or more in the last 5 s (their
 * probes' `starved` events, gathered by pool/starvation-gauge.ts). Machine-wide CPU pressure
 * (PSI) is not the gate: a single run draining at full speed keeps some task waiting most of
 * the time on two cores without starving anyone's heartbeat. The first run always starts: under
 * someone else's load leaseproof still progresses, one run at a time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { worstRecentStarvation } from '../pool/starvation-gauge.js';

/** How admission decides. */
export interface MachineRoomOptions {
  /** A worker starved this long (ms) in the last 5 s means no room. Default 50. */
  starvedMs?: number;
  /** Least time between two starts, ms. Default 500. */
  spacingMs?: number;
  /**
   * How many runs under way are still in setup (absent: none). A start waits for them, for at
   * most `settleMs` after the previous start.
   */
  settling?: () => number;
  /**
   * The longest a start waits for the previous one's setup, ms. Default 15 s: a setup slower
   * than that (a loaded machine) does not hold the suite back forever, and the starvation gate
   * still has its say.
   */
  settleMs?: number;
  /** How often the gauge is read while waiting, ms. Default 250. */
  pollMs?: number;
  /** The worst recent starvation, ms (injectable for tests). */
  read?: () => number;
  /** Told once per wait that has to wait, with the starvation that made it. */
  onWait?: (starvedMs: number) => void;
}

/**
 * Default: a worker thread kept from running 50 ms — the curated suite's shortest heartbeat
 * period (heartbeat-contention), so one more run never costs a beat there.
 */
export const ROOM_STARVED_MS = 50;

/**
 * How far back admission looks for starvation, ms. A start waits for the previous run's setup
 * (the burst of forks that starves the others most) to end, so what is left to see is the steady
 * load of the runs under way; 10 s held every start back long after a burst had passed (13 waits
 * in one quiet demo, 96 s of its 182 with one run going).
 */
export const ROOM_WINDOW_MS = 5_000;

/**
 * A gate for `runInLanes`' `room`: resolves when one more run may start beside the `running()`
 * others under way.
 */
export function machineRoom(
  options: MachineRoomOptions = {},
): (running: () => number, signal?: AbortSignal) => Promise<void> {
  const limit = options.starvedMs ?? ROOM_STARVED_MS;
  const spacingMs = options.spacingMs ?? 500;
  const settleMs = options.settleMs ?? 15_000;
  const settling = options.settling ?? (() => 0);
  const pollMs = options.pollMs ?? 250;
  const read = options.read ?? (() => worstRecentStarvation(ROOM_WINDOW_MS));
  let lastStart = -Infinity;
  return async (running, signal) => {
    let told = false;
    // `running` is asked again on every poll: when the others finish while this one waits on
    // someone else's load, it starts at once rather than waiting for the machine to calm down.
    while (running() > 0 && signal?.aborted !== true) {
      const since = performance.now() - lastStart;
      const wait = spacingMs - since;
      if (wait > 0 || (settling() > 0 && since < settleMs)) {
        await sleep(Math.min(Math.max(wait, 10), pollMs), undefined, { signal }).catch(
          () => undefined,
        );
        continue;
      }
      const starved = read();
      if (starved < limit) break;
      if (!told) options.onWait?.(starved);
      told = true;
      await sleep(pollMs, undefined, { signal }).catch(() => undefined);
    }
    lastStart = performance.now();
  };
}
