import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, setPriority } from 'node:os';
import { guardChild, unguardChild } from './child-guard.js';
import { newRunId } from './run-id.js';
import {
  forgetProcess,
  recordProcess,
  stopProcess,
  type ProcessRecord,
} from './process-registry.js';

/** Options for `startCpuHog`. */
export interface CpuHogOptions {
  /** How many busy processes (default: one per core). */
  processes?: number;
  /** Their nice value (default 0: they compete with the run as an equal, as a CI neighbour does). */
  nice?: number;
}

// A marker in the command line, so the leftover reaper signals only our own busy loops.
const MARKER = 'leaseproof-cpu-hog';
const SCRIPT = `/* ${MARKER} */ for (;;) {}`;

/**
 * Busy processes that keep every core loaded: the "loaded CI runner" of the flake bench and of
 * the starvation tests. Recorded like the harness's other processes, so a killed bench leaves
 * nothing spinning after the next command.
 */
export class StartedCpuHog implements AsyncDisposable {
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly children: ChildProcess[],
    private readonly records: ProcessRecord[],
  ) {}

  /** Starts the busy processes; they run until `stop`. */
  static async start(options: CpuHogOptions = {}): Promise<StartedCpuHog> {
    const count = options.processes ?? availableParallelism();
    const runId = newRunId();
    const children: ChildProcess[] = [];
    const records: ProcessRecord[] = [];
    const hog = new StartedCpuHog(children, records);
    try {
      for (let i = 0; i < count; i += 1) {
        // Not detached, unlike the servers and workers: a session of its own is a scheduling
        // autogroup of its own on Linux (sched_autogroup), which competes with the caller's
        // session as one group, so a niced probe beside it was no longer starved — the hog
        // stands for busy neighbours, and must compete as they do. A Ctrl-C that reaches it
        // costs nothing: it holds no state, and its records are reaped like the others.
        const child = spawn(process.execPath, ['-e', SCRIPT], { stdio: 'ignore' });
        if (child.pid === undefined) throw new Error('could not start a CPU hog process');
        children.push(child);
        guardChild(child.pid, 'SIGKILL');
        if (options.nice !== undefined) setPriority(child.pid, options.nice);
        records.push(
          await recordProcess({
            runId,
            kind: 'hog',
            pid: child.pid,
            ownerPid: process.pid,
            stopSignal: 'SIGKILL',
          }),
        );
      }
    } catch (error) {
      await hog.stop();
      throw error;
    }
    return hog;
  }

  /** How many busy processes run. */
  get processes(): number {
    return this.children.length;
  }

  /** Kills every busy process; idempotent. */
  async stop(): Promise<void> {
    this.stopping ??= (async () => {
      await Promise.all(
        this.children.map(async (child) => {
          if (child.pid === undefined) return;
          await stopProcess(child.pid, 'SIGKILL', 0);
          unguardChild(child.pid);
        }),
      );
      await Promise.all(this.records.map((record) => forgetProcess(record)));
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
