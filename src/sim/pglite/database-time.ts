/**
 * Time inside the database: PostgreSQL's own timed waits advance the simulated clock. PGlite
 * runs a statement synchronously in this thread, and PostgreSQL's `WaitLatch` with a timeout —
 * `pg_sleep`, `pg_sleep_for`, `pg_sleep_until`, whatever calls them — polls `performance.now`
 * until the timeout has passed. On a fake clock that never moves while the statement holds the
 * thread, so the wait never ended (issue 38: `simulate` spun at 100 % CPU). Here a burst of
 * polls within one synchronous stretch is time passing: every `POLLS_PER_MS` of them tick the
 * clock a millisecond, so the sleep ends when its own arithmetic says it has slept, and
 * `clock_timestamp()` after it is later by the sleep, as on a server. The one session is held
 * meanwhile: other connections' statements wait behind the sleeping one (exact for what it
 * writes, conservative for the rest), and timers due during it fire on time.
 *
 * The same hook is the run's bound inside a statement: a statement that loops, reading the clock
 * (`WHILE clock_timestamp() < …`), or sleeps past the run's steps, is cut when its bound passes —
 * by an exception thrown into PGlite, which leaves it unusable (see `SimDatabase.cutOff`).
 */
import type { StepMeter } from './step-meter.js';

/** The fake clock's part this hook drives. */
interface TickingClock {
  tick(ms: number): unknown;
}

// A statement that does not wait polls the clock a few times; a wait polls it millions of times a
// second. A hundred polls to the millisecond keeps a wait's pace near the wall's (a 1 s sleep is
// 100,000 polls: some 25 ms of wall time here).
const POLLS_PER_MS = 100;
// How often a stretch's clock reads look at the wall: often enough to stop within milliseconds.
const READS_PER_CHECK = 4_096;

/** The database the hook watches: whether a statement is running in it, and how to cut it off. */
export interface WatchedDatabase {
  /** Whether one of its statements is in flight (the hook counts nothing outside one). */
  inStatement(): boolean;
  /** Hears of a bound passed inside a statement, before the exception is thrown into it. */
  cutOff(error: Error): void;
}

/**
 * Hooks `performance.now` and `Date.now` (the fake clock's, installed before) so that the
 * database's waits advance `clock` and its loops are bound by `meter`. Returns the unhook.
 */
export function hookDatabaseTime(
  clock: TickingClock,
  meter: StepMeter,
  db: WatchedDatabase,
): () => void {
  const fakePerformanceNow = performance.now.bind(performance);
  const fakeDateNow = Date.now.bind(Date);
  const performanceNow = Object.getOwnPropertyDescriptor(performance, 'now');
  const dateNow = Object.getOwnPropertyDescriptor(Date, 'now');
  // Clock reads within one synchronous stretch: a microtask queued at a stretch's first read runs
  // only once the stretch (a statement inside PGlite) has returned.
  let reads = 0;
  let polls = 0;
  // Outside a statement the simulation's own code reads the clock, which is no wait: one check.
  const read = (): boolean => {
    if (!db.inStatement()) return false;
    if (reads === 0) {
      queueMicrotask(() => {
        reads = 0;
        polls = 0;
      });
    }
    reads += 1;
    if (reads % READS_PER_CHECK === 0) cut(meter.check());
    return true;
  };
  const cut = (error: Error | undefined): void => {
    if (error === undefined) return;
    db.cutOff(error);
    throw error;
  };
  Object.defineProperty(performance, 'now', {
    configurable: true,
    writable: true,
    value: (): number => {
      if (!read()) return fakePerformanceNow();
      polls += 1;
      if (polls % POLLS_PER_MS === 0) {
        cut(meter.step());
        clock.tick(1);
      }
      return fakePerformanceNow();
    },
  });
  Object.defineProperty(Date, 'now', {
    configurable: true,
    writable: true,
    value: (): number => {
      read();
      return fakeDateNow();
    },
  });
  return () => {
    if (performanceNow !== undefined) Object.defineProperty(performance, 'now', performanceNow);
    else Reflect.deleteProperty(performance, 'now');
    if (dateNow !== undefined) Object.defineProperty(Date, 'now', dateNow);
  };
}
