/**
 * Simulated runs on N processes at once (`explore --sim --parallel N`, the guided `mutants`). The
 * simulated clock is a process's (fake timers replace its globals) and PGlite is one session, so
 * runs side by side need processes of their own: each child (`sim-pool-main.ts`) starts its own
 * PGlite, loads each queue once, and runs one scenario at a time as `simulateRun` does in
 * process — the same history for the same scenario, whichever child ran it, since every run
 * starts from a reset database and a seeded clock. Callers share the children; one waits for a
 * free child. Checkers run in the caller, on the history that comes back.
 *
 * Lifecycle: `start` resolves once every child is ready; `stop` is idempotent, and a child also
 * ends when its parent goes (its IPC channel closes), so none outlives a Ctrl-C.
 *
 * Bounded: a child bounds its own runs (`SimBounds`), but a statement that loops inside PGlite
 * without reading the clock holds the child's one thread where no bound of its own can run. The
 * parent gives each run its wall bound and as long again; past that it kills the child, answers
 * the run `SimulationBoundError` (unknown) and starts another child in its place.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { History } from '../../history/types.js';
import type { Scenario } from '../../scenario/scenario-types.js';
import { ConfigError } from '../../errors.js';
import { SimulationLimitError } from './sim-database.js';
import { DEFAULT_SIM_BOUNDS, SimulationBoundError, type SimBounds } from './sim-bounds.js';

// Past a run's own wall bound, how much longer the parent waits before it kills the child: the
// child's bound should have ended the run well before (a PGlite to renew after a cut included).
const KILL_GRACE_MS = 10_000;

/** A message from a child. */
export type FromChild =
  | { type: 'ready' }
  | { type: 'done'; id: number; history: History }
  | { type: 'failed'; id: number; name: string; message: string; history?: History };

/** A message to a child. */
export interface ToChild {
  type: 'run';
  id: number;
  scenario: Scenario;
  queue: string;
  /** The run's bounds, where not the defaults. */
  bounds?: Partial<SimBounds>;
}

interface Pending {
  resolve: (history: History) => void;
  reject: (error: Error) => void;
}

/** Processes that each run simulated scenarios. */
export class SimPool {
  private readonly idle: ChildProcess[] = [];
  private readonly waiting: ((child: ChildProcess) => void)[] = [];
  private readonly pending = new Map<number, Pending>();
  /** The run each busy child has in hand. */
  private readonly inHand = new Map<ChildProcess, number>();
  private ids = 0;
  private stopped = false;
  /** Children killed for holding a run past its bound: their exit is no failure of the pool. */
  private readonly retired = new Set<ChildProcess>();
  /** Children killed past a run's bound, and replaced. */
  killed = 0;

  private constructor(
    private readonly children: ChildProcess[],
    private readonly bounds: Partial<SimBounds> | undefined,
  ) {
    this.idle.push(...children);
  }

  /**
   * Starts `count` children, whose runs are held to `bounds` (default `DEFAULT_SIM_BOUNDS`); a
   * run that holds one past its wall bound and a grace kills it.
   */
  static async start(count: number, bounds?: Partial<SimBounds>): Promise<SimPool> {
    const children = Array.from({ length: count }, () => spawnChild());
    const pool = new SimPool(children, bounds);
    try {
      await Promise.all(children.map((child) => pool.listen(child)));
    } catch (error) {
      await pool.stop();
      throw error;
    }
    return pool;
  }

  /**
   * `scenario` against `queue` (a built-in name or an adapter file) in simulated time on the
   * next free child: its history, or the `SimulationLimitError` of what the simulation cannot
   * model (a scenario it refuses, a statement it cannot run).
   */
  async history(
    scenario: Scenario,
    queue: string,
    /** This run's bounds, where not the pool's. */
    runBounds?: Partial<SimBounds>,
  ): Promise<History> {
    const bounds = runBounds ?? this.bounds;
    const child = await this.take();
    const id = (this.ids += 1);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const killAfterMs = (bounds?.wallMs ?? DEFAULT_SIM_BOUNDS.wallMs) + KILL_GRACE_MS;
    try {
      return await new Promise<History>((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.inHand.set(child, id);
        timer = setTimeout(() => {
          reject(
            new SimulationBoundError(
              `simulation bound: ${scenario.name} × ${queue} held its simulation process ` +
                `${(killAfterMs / 1000).toFixed(0)} s, past its wall bound, ` +
                'and the process was killed — a statement that loops inside the database? The run is unknown',
            ),
          );
          this.replace(child);
        }, killAfterMs);
        child.send({
          type: 'run',
          id,
          scenario,
          queue,
          ...(bounds !== undefined && { bounds }),
        } satisfies ToChild);
      });
    } finally {
      clearTimeout(timer);
      this.pending.delete(id);
      this.inHand.delete(child);
      if (!this.retired.has(child)) this.give(child);
    }
  }

  /** Kills `child`, which holds a run past its bound, and starts another in its place. */
  private replace(child: ChildProcess): void {
    this.retired.add(child);
    this.killed += 1;
    child.kill('SIGKILL');
    if (this.stopped) return;
    const fresh = spawnChild();
    this.children.push(fresh);
    // A replacement that cannot start leaves the pool a child short; the others go on.
    this.listen(fresh).then(
      () => this.give(fresh),
      () => undefined,
    );
  }

  /** Stops every child; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all(
      this.children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    for (const { reject } of this.pending.values()) reject(new Error('simulation pool stopped'));
  }

  /** Resolves when `child` is ready; routes its answers from then on. */
  private listen(child: ChildProcess): Promise<void> {
    return new Promise<void>((ready, failed) => {
      child.on('message', (message: FromChild) => {
        if (message.type === 'ready') return ready();
        const pending = this.pending.get(message.id);
        if (pending === undefined) return;
        if (message.type === 'done') pending.resolve(message.history);
        else pending.reject(childError(message.name, message.message, message.history));
      });
      child.once('exit', (code, signal) => {
        if (this.retired.has(child)) return;
        const why = new Error(
          `a simulation process ended (${signal ?? `exit ${code}`})` +
            (this.stopped ? '' : ': see its output above'),
        );
        failed(why);
        // The run it had in hand ends with it.
        const id = this.inHand.get(child);
        if (id !== undefined) this.pending.get(id)?.reject(why);
      });
    });
  }

  private take(): Promise<ChildProcess> {
    if (this.stopped) return Promise.reject(new Error('simulation pool stopped'));
    const child = this.idle.shift();
    if (child !== undefined) return Promise.resolve(child);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private give(child: ChildProcess): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(child);
    else this.idle.push(child);
  }
}

/** A new child process, not yet ready. */
function spawnChild(): ChildProcess {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(`./sim-pool-main.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  return fork(file.pathname, [], {
    // Always tsx: the queue may be a user's TypeScript adapter file.
    execArgv: ['--import', import.meta.resolve('tsx')],
    // Structured clone, not JSON: a history holds NaN and Infinity.
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** A child's error as the in-process run would have thrown it. */
function childError(name: string, message: string, history?: History): Error {
  if (name === 'SimulationLimitError') return new SimulationLimitError(message);
  if (name === 'ConfigError') return new ConfigError(message);
  if (name === 'SimulationBoundError') return new SimulationBoundError(message, history);
  const error = new Error(message);
  error.name = name;
  return error;
}
