import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueAdapter } from '../../queue/types.js';

// Where Debian's `faketime` package (and a source build) put the preload library.
const LIBFAKETIME_CANDIDATES = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1',
  '/usr/lib/faketime/libfaketime.so.1',
  '/usr/local/lib/faketime/libfaketime.so.1',
];

/** The libfaketime preload library: `LEASEPROOF_LIBFAKETIME`, else a known install path. */
export function findLibfaketime(): string | undefined {
  const given = process.env.LEASEPROOF_LIBFAKETIME;
  if (given !== undefined && given !== '') return existsSync(given) ? given : undefined;
  return LIBFAKETIME_CANDIDATES.find((file) => existsSync(file));
}

/** Why a program's clock cannot be skewed here, for reports: what to install. */
export const NO_LIBFAKETIME =
  'libfaketime is not installed, so the clock a worker program reads cannot be skewed ' +
  '(Debian/Ubuntu: apt-get install faketime; or set LEASEPROOF_LIBFAKETIME to libfaketime.so.1)';

/**
 * A worker program's wall clock, skewed from outside with libfaketime: the program runs with the
 * library preloaded and reads its offset from a file at every clock read (`FAKETIME_NO_CACHE`),
 * so a new offset takes effect at once. The monotonic clock is left alone
 * (`FAKETIME_DONT_FAKE_MONOTONIC`): timeouts and the event times leaseproof compares across
 * processes stay real. The file is replaced whole (write, then rename), never read half-written.
 */
export class ProgramClock {
  private readonly dir: string;
  private readonly file: string;
  private writtenMs: number | undefined;

  /** `library`: libfaketime to preload; absent, the program reads the offset file itself. */
  constructor(private readonly library?: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'leaseproof-clock-'));
    this.file = join(this.dir, 'offset');
    this.set(0);
  }

  /** The environment that makes a program read this clock. */
  env(): Record<string, string> {
    if (this.library === undefined) return { LEASEPROOF_CLOCK_FILE: this.file };
    return {
      LD_PRELOAD: this.library,
      FAKETIME_TIMESTAMP_FILE: this.file,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    };
  }

  /** Sets the offset from real time, in ms (rewritten only when it moved by half a ms or more). */
  set(offsetMs: number): void {
    if (this.writtenMs !== undefined && Math.abs(offsetMs - this.writtenMs) < 0.5) return;
    const seconds = (offsetMs / 1000).toFixed(4);
    const next = `${this.file}.next`;
    writeFileSync(next, `${offsetMs < 0 ? '' : '+'}${seconds}\n`);
    renameSync(next, this.file);
    this.writtenMs = offsetMs;
  }

  /** Removes the offset file. Idempotent. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The `limits` of an adapter whose code runs in a worker program: its clock can be skewed only
 * through libfaketime, so without it runs that skew a clock cannot be valid.
 */
export function programClockLimits(): QueueAdapter['limits'] {
  return findLibfaketime() === undefined ? { clockSkew: false, reason: NO_LIBFAKETIME } : undefined;
}
