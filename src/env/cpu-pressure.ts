/**
 * CPU pressure (Linux PSI): how much of the time some runnable task waited for a CPU. On a busy
 * CI runner — other jobs, builds, the harness's own runs side by side — a start-up that takes
 * 30 s of wall time may have had the CPU for 3 of them. Timeouts that mean "this is broken" count
 * only time in which the machine had a CPU to give (`UncontendedStopwatch`), and the suite
 * admits a new run only while the pressure leaves room (`scale-out/machine-room.ts`): load
 * costs time, not verdicts.
 *
 * The cgroup's own file is read first (a container's or a CI job's share), then the machine's;
 * where neither exists (no PSI: an old kernel, another OS), pressure is unknown and callers fall
 * back to wall time.
 */
import { readFileSync } from 'node:fs';

const FILES = ['/sys/fs/cgroup/cpu.pressure', '/proc/pressure/cpu'];

/** The `some` line of a PSI file: averages in percent, total in µs. */
export interface CpuPressure {
  /** Percent of the last 10 s in which some task waited for a CPU. */
  avg10: number;
  /** Percent of the last 60 s. */
  avg60: number;
  /** µs in which some task waited, since boot (monotonic). */
  totalUs: number;
}

/** Parses the `some` line of a PSI file; undefined when it has none. */
export function parseCpuPressure(text: string): CpuPressure | undefined {
  const m = /^some avg10=([\d.]+) avg60=([\d.]+) avg300=[\d.]+ total=(\d+)/m.exec(text);
  if (m === null) return undefined;
  return { avg10: Number(m[1]), avg60: Number(m[2]), totalUs: Number(m[3]) };
}

let source: string | null | undefined;

/** The CPU pressure now, or undefined where this system does not report it. */
export function readCpuPressure(): CpuPressure | undefined {
  if (source === null) return undefined;
  for (const file of source === undefined ? FILES : [source]) {
    try {
      const pressure = parseCpuPressure(readFileSync(file, 'utf8'));
      if (pressure !== undefined) {
        source = file;
        return pressure;
      }
    } catch {
      // Not this one (no cgroup v2 here, or PSI disabled): try the next.
    }
  }
  source = null;
  return undefined;
}

/**
 * Wall time minus the time some task waited for a CPU. While the machine is saturated it barely
 * moves; on an idle machine it is the wall clock. A worker that is really stuck is still caught
 * (on a quiet machine at once, on a busy one by the caller's wall-time cap).
 */
export class UncontendedStopwatch {
  private constructor(
    private readonly startedAt: number,
    private readonly stallAtStart: number | undefined,
    private readonly read: () => CpuPressure | undefined,
  ) {}

  /** Starts measuring now; `read` is injectable for tests. */
  static start(read: () => CpuPressure | undefined = readCpuPressure): UncontendedStopwatch {
    return new UncontendedStopwatch(performance.now(), read()?.totalUs, read);
  }

  /** Wall time so far, the part of it with the CPU contended, and the rest, in ms. */
  elapsed(): { wallMs: number; contendedMs: number; uncontendedMs: number } {
    const wallMs = performance.now() - this.startedAt;
    const now = this.read()?.totalUs;
    const contendedMs =
      this.stallAtStart === undefined || now === undefined
        ? 0
        : Math.min(wallMs, Math.max(0, (now - this.stallAtStart) / 1000));
    return { wallMs, contendedMs, uncontendedMs: wallMs - contendedMs };
  }
}
