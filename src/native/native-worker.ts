/**
 * The native side of the worker wire format, for Node.js queue libraries: the library's *own*
 * worker loop (its fetch, expiry, completion) is the worker, and leaseproof's handler plan is its
 * handler. The same contract as the Python and Go clients (`docs/worker-wire-format.md`): JSON
 * lines on stdin (`config`, then `go`, `clock`, `report-clock`, `stall`) and `events` lines on
 * stdout, event times on CLOCK_MONOTONIC in ms, the clock skewed by libfaketime (preloaded by the
 * transport; this program only reports its clock), effects written over the direct URL.
 *
 * leaseproof's own Node worker speaks the same messages over Node's IPC channel and runs
 * leaseproof's loop; this one runs none of it: what the library does is what is tested.
 */
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { EffectRecorder } from '../worker/effects.js';
import { busyWait, handlerPlanOf, runHandler } from '../worker/handler.js';
import { DEFAULT_STARVATION, StarvationProbe } from '../worker/starvation-probe.js';
import type { ClockSkew, ControlMessage, WorkerConfig, WorkerEvent } from '../worker/types.js';
import { WIRE_FORMAT_VERSION } from '../worker/wire-format.js';

/** CLOCK_MONOTONIC in ms (libuv's hrtime): the time base of every event this program sends. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The handler plan fails this attempt (`failAttempts`): a transient error, by design. */
export class PlannedFailure extends Error {
  constructor(attempt: number, failAttempts: number) {
    // The attempt is in the message: a library that keeps the last error on the row (graphile-
    // worker's last_error) then writes a new one on every failed attempt.
    super(`planned failure of attempt ${attempt} (failAttempts ${failAttempts})`);
    this.name = 'PlannedFailure';
  }
}

/** A queue library's own worker loop, as the native runner drives it. */
export interface NativeTarget {
  /**
   * Connects the library to `worker.config.databaseUrl` (the worker's own proxy) with
   * `application_name` = the worker id; the worker says `ready` after. Called again, with a
   * fresh library instance, after the loop ended with an error (see `NativeWorker.supervise`).
   */
  prepare(worker: NativeWorker): Promise<void>;
  /**
   * After `go`: runs the library's loop until it stops, resolving then (after `stop`), or
   * rejecting when the loop gave up. The library's handler calls `worker.runJob`.
   */
  run(worker: NativeWorker): Promise<void>;
  /** Begins the library's graceful shutdown (SIGTERM): the job in hand is finished. */
  stop(worker: NativeWorker): Promise<void>;
}

/** One claim the library handed its handler. */
export interface HandedJob {
  jobId: string;
  /** The holder the audit shows for this claim. */
  token: string;
  attempt: number;
  payload: Record<string, unknown>;
  /** The library's cancellation of its handler, where it has one. */
  signal?: AbortSignal;
}

/** An event before its time stamp: `emit` stamps it (a stamp already there is replaced). */
export type UnstampedEvent = WorkerEvent extends infer E
  ? E extends WorkerEvent
    ? Omit<E, 'at'> & { at?: number }
    : never
  : never;

/** One native worker process: the wire format on stdin/stdout, the handler plan, probes. */
export class NativeWorker {
  private configValue: WorkerConfig | undefined;
  private skew: Required<ClockSkew> = { offsetMs: 0, driftPpm: 0 };
  private skewSince = monotonicMs();
  private effects: EffectRecorder | undefined;
  private released: (() => void) | undefined;
  /**
   * Resolves at the controller's `go` (or a SIGTERM before it): a library started in `prepare`
   * must not fetch before it.
   */
  readonly started = new Promise<void>((resolve) => (this.released = resolve));
  private stoppingValue = false;
  private exitReason = 'stopped';

  constructor(
    private readonly target: NativeTarget,
    /** Where event lines go: stdout's descriptor, written synchronously (a SIGKILL loses none). */
    private readonly out = 1,
  ) {}

  /** The run's configuration (after the `config` message). */
  get config(): WorkerConfig {
    if (this.configValue === undefined) throw new Error('no config message yet');
    return this.configValue;
  }

  /** Whether a SIGTERM asked this worker to stop. */
  get stopping(): boolean {
    return this.stoppingValue;
  }

  /** Sends one event, stamped now on the monotonic clock. */
  emit(event: UnstampedEvent): void {
    const line = JSON.stringify({ type: 'events', events: [{ ...event, at: monotonicMs() }] });
    writeSync(this.out, `${line}\n`);
  }

  /** Writes one line to stderr, the program's free log. */
  log(line: string): void {
    process.stderr.write(`${line}\n`);
  }

  /**
   * Runs leaseproof's handler plan for one claim the library handed its handler: reports the
   * claim as the handler saw it (the library's own statement is the audit's to record), each
   * unit, each effect (on record in `leaseproof_effects` first), and a cancellation by the
   * library between units as `abort`. Throws `PlannedFailure` after the last unit of an attempt
   * the plan fails; resolves when the attempt's work is done.
   */
  async runJob(job: HandedJob): Promise<void> {
    const { jobId, token, attempt } = job;
    this.emit({ kind: 'claim', outcome: 'ok', jobId, token, attempt });
    const plan = handlerPlanOf(job.payload);
    this.effects ??= new EffectRecorder(this.config.effectsUrl, this.config.workerId);
    const effects = this.effects;
    const result = await runHandler(plan, job.signal ?? new AbortController().signal, {
      onUnit: (unit, u) => this.emit({ kind: 'unit', jobId, token, unit, effect: u.effect }),
      onEffect: async (unit) => {
        const recorded = await effects.record(jobId, token, unit);
        this.emit({ kind: 'effect', jobId, token, unit, recorded });
      },
      onAbort: (unit) => this.emit({ kind: 'abort', jobId, token, unit }),
      // A plan whose handler ignores its cancellation (`ignoresAbort`) runs on after the library
      // aborted it; the history must show the library did cancel it, so that its effects are
      // judged as the handler's broken contract (a warning), not as a library without a stop.
      onAbortIgnored: (unit) => this.emit({ kind: 'abort-ignored', jobId, token, unit }),
    });
    if (!result.completed)
      throw new Error(`cancelled by the library before unit ${result.abortedAtUnit}`);
    if (attempt <= plan.failAttempts) throw new PlannedFailure(attempt, plan.failAttempts);
  }

  /** Runs the program to its end: config, ready, go, the library's loop, exit. */
  async main(): Promise<number> {
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const messages = lines[Symbol.asyncIterator]();
    const first = await messages.next();
    const config = first.done === true ? undefined : parse(String(first.value));
    if (config?.type !== 'config') {
      this.log(
        `expected a config message first, got ${first.done === true ? 'end of input' : String(first.value)}`,
      );
      return 2;
    }
    if (config.wireFormat !== WIRE_FORMAT_VERSION) {
      this.log(`wire format ${String(config.wireFormat)} is not ${WIRE_FORMAT_VERSION}`);
      return 2;
    }
    this.configValue = config.config;
    if (config.config.clock !== undefined) this.setSkew(config.config.clock);
    process.on('SIGTERM', () => this.onSigterm());
    // A library promise nobody awaits that rejects (pg-boss 10's work() does not await its
    // complete() or fail(): on a cut connection they reject unhandled) would end the process
    // under Node's default. A user's process that survives that has such a handler; this one
    // reports each as an `error` event in the history and goes on.
    process.on('unhandledRejection', (reason) => {
      const message = `unhandled rejection in the library: ${String(reason)}`;
      this.log(message);
      this.emit({ kind: 'error', message });
    });
    // The rest of stdin: control messages, and its end — the controller went away, and a
    // worker never outlives it.
    void (async () => {
      for await (const line of { [Symbol.asyncIterator]: () => messages }) {
        const message = parse(String(line));
        if (message === undefined) this.log(`not a control message: ${String(line).slice(0, 120)}`);
        else this.onMessage(message);
      }
      this.exitReason = 'controller disconnected';
      this.emit({ kind: 'exit', reason: this.exitReason });
      process.exit(0);
    })();
    await this.target.prepare(this);
    // The library's loop sets itself up after go: at work from its first claim.
    this.emit({
      kind: 'ready',
      pid: process.pid,
      wireFormat: WIRE_FORMAT_VERSION,
      startsOnGo: true,
    });
    await this.started;
    const probe = new StarvationProbe(
      'main',
      this.config.starvation ?? DEFAULT_STARVATION,
      // The probe stamps its own clock; this program's events are on the monotonic one.
      (event) => this.emit(event),
    );
    probe.start();
    try {
      await this.supervise();
    } finally {
      probe.stop();
      await this.effects?.close();
    }
    this.emit({ kind: 'exit', reason: this.exitReason });
    return 0;
  }

  /**
   * Runs the library's loop, and starts it afresh whenever it ends with an error, as the user's
   * process supervisor would (without the process restart): the error is reported as a claim of
   * unknown outcome, so the history counts the worker as cut off until its next event, the
   * target is prepared again until that succeeds, and run again. `LEASEPROOF_NATIVE_SUPERVISE=0`
   * lets the program exit instead (leaseproof then reports the run as an error).
   */
  private async supervise(): Promise<void> {
    const supervise = process.env.LEASEPROOF_NATIVE_SUPERVISE !== '0';
    const pauseMs = Math.max(50, this.config.lease.pollMs);
    while (!this.stoppingValue) {
      try {
        await this.target.run(this);
        return;
      } catch (error) {
        if (this.stoppingValue || !supervise) throw error;
        this.log(`the library's loop ended: ${String(error)}`);
        this.emit({
          kind: 'claim',
          outcome: 'info',
          error: `the library's loop ended: ${String(error)}`,
        });
      }
      while (!this.stoppingValue) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        try {
          await this.target.prepare(this);
          break;
        } catch (error) {
          this.log(`restarting the library's loop: ${String(error)}`);
        }
      }
    }
  }

  private onMessage(message: ControlMessage): void {
    switch (message.type) {
      case 'go':
        this.released?.();
        break;
      case 'clock':
        // libfaketime has moved this process's clock already (the transport rewrote its file
        // before forwarding): this is only what to subtract when reporting the real time.
        this.setSkew(message.skew);
        this.reportClock();
        break;
      case 'report-clock':
        this.reportClock();
        break;
      case 'stall':
        this.emit({ kind: 'stall', ms: message.ms });
        // The event loop is the library's and the handler's: a stall blocks both.
        busyWait(message.ms);
        break;
      default:
        break;
    }
  }

  private setSkew(skew: ClockSkew): void {
    this.skew = { offsetMs: skew.offsetMs, driftPpm: skew.driftPpm ?? 0 };
    this.skewSince = monotonicMs();
  }

  private reportClock(): void {
    const drift = (this.skew.driftPpm * (monotonicMs() - this.skewSince)) / 1e6;
    const workerNow = Date.now();
    this.emit({ kind: 'clock', workerNow, realNow: workerNow - this.skew.offsetMs - drift });
  }

  private onSigterm(): void {
    if (this.stoppingValue) return;
    this.stoppingValue = true;
    this.exitReason = 'SIGTERM';
    this.released?.();
    void this.target.stop(this).catch((error: unknown) => this.log(`stop: ${String(error)}`));
  }
}

function parse(line: string): ControlMessage | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && 'type' in value
      ? (value as ControlMessage)
      : undefined;
  } catch {
    return undefined;
  }
}
