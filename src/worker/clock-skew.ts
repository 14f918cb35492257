import FakeTimers from '@sinonjs/fake-timers';
import { publishClockSkew } from '../queue/clock-skew-reading.js';
import type { ClockSkew } from './types.js';

/**
 * Skews this process's `Date` (and only `Date`) with @sinonjs/fake-timers: timers,
 * `performance.now()` and the event loop stay real, as they are on a host whose wall clock is
 * wrong. The fake clock's `now` is a live function of the monotonic clock, so the skewed Date
 * advances in real time, follows live changes of offset and drift, and does not freeze while
 * the event loop is blocked.
 */
export class SkewedClock {
  private offsetMs = 0;
  private driftPpm = 0;
  private driftSince = performance.now();
  private readonly realNow = Date.now.bind(Date);
  private installed = false;

  /** Sets (or changes) the skew; a changed offset is a jump. */
  set(skew: ClockSkew): void {
    if (!this.installed && skew.offsetMs === 0 && (skew.driftPpm ?? 0) === 0) return;
    this.install();
    // Drift accumulated so far is folded into the offset so a new rate starts from here.
    this.offsetMs = skew.offsetMs;
    this.driftPpm = skew.driftPpm ?? 0;
    this.driftSince = performance.now();
  }

  /** The current skew in ms: the offset plus the drift accumulated since it was set. */
  skewMs(): number {
    return this.offsetMs + ((performance.now() - this.driftSince) * this.driftPpm) / 1e6;
  }

  /** The real wall-clock time, unskewed. */
  real(): number {
    return this.realNow();
  }

  private install(): void {
    if (this.installed) return;
    this.installed = true;
    const base = this.realNow();
    const t0 = performance.now();
    const clock = FakeTimers.withGlobal(globalThis).install({ toFake: ['Date'], now: base });
    // Queue code with a clock of its own (a worker program) is skewed to match.
    publishClockSkew(() => this.skewMs());
    Object.defineProperty(clock, 'now', {
      get: () => {
        const elapsed = performance.now() - t0;
        const drift = ((performance.now() - this.driftSince) * this.driftPpm) / 1e6;
        return Math.round(base + elapsed + this.offsetMs + drift);
      },
      set: () => undefined,
      configurable: true,
    });
  }
}
