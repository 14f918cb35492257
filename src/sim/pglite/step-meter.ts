/**
 * Counts a simulated run's steps and watches its wall time against its `SimBounds`. Wall time is
 * read from `process.hrtime`, which the fake clock leaves alone (it fakes `Date` and
 * `performance`), so the meter sees real time pass while simulated time stands still.
 */
import { SimulationBoundError, type SimBounds } from './sim-bounds.js';

/** One run's meter. */
export class StepMeter {
  private steps = 0;
  private readonly startedNs = process.hrtime.bigint();
  /** The bound passed, once one is: the run ends in it. */
  exceeded: SimulationBoundError | undefined;

  constructor(
    private readonly bounds: SimBounds,
    /** Simulated ms since the run's start, for the message. */
    private readonly simulatedMs: () => number,
  ) {}

  /** Counts `n` steps; returns the bound passed, if any (and keeps it). */
  step(n = 1): SimulationBoundError | undefined {
    this.steps += n;
    return this.check();
  }

  /** The bound passed, if any (and keeps it): steps or wall time. */
  check(): SimulationBoundError | undefined {
    if (this.exceeded !== undefined) return this.exceeded;
    const wallMs = Number(process.hrtime.bigint() - this.startedNs) / 1e6;
    const over =
      this.steps > this.bounds.steps
        ? `${this.bounds.steps.toLocaleString('en-US')} steps`
        : wallMs > this.bounds.wallMs
          ? `${(this.bounds.wallMs / 1000).toLocaleString('en-US')} s of wall time`
          : undefined;
    if (over === undefined) return undefined;
    this.exceeded = new SimulationBoundError(
      `simulation bound: ${over} exceeded at simulated +${(this.simulatedMs() / 1000).toFixed(1)} s ` +
        `(${this.steps.toLocaleString('en-US')} steps, ${(wallMs / 1000).toFixed(1)} s wall) — ` +
        'an adapter statement that waits on time or loops inside the database? The run is unknown',
    );
    return this.exceeded;
  }
}
