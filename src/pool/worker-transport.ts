/**
 * The seam between the controller and a worker process, in the manner of vitest's pool
 * runtimes: `StartedWorker` (the lifecycle, readiness, the nemesis's signals, the registry
 * record) talks to a worker only through a `WorkerLink`, and a `WorkerTransport` makes one.
 * What travels over a link is the wire format of `worker/wire-format.ts`
 * (`docs/worker-wire-format.md`): JSON values, so a worker written in another language can
 * speak it over whatever its transport carries.
 */
import type { ControlMessage, WorkerConfig } from '../worker/types.js';

/** One started worker process, as a transport reaches it. */
export interface WorkerLink {
  /**
   * The worker's OS process id. The nemesis signals this process itself (SIGSTOP, SIGCONT,
   * SIGKILL), so it must be the process that runs the worker loop, not a launcher that waits for
   * it (`go run`, a shell): a launcher would be paused while the worker ran on.
   */
  readonly pid: number;
  /** Whether `send` can deliver now (false once the process exited or closed its channel). */
  readonly connected: boolean;
  /** Sends one control message. */
  send(message: ControlMessage): void;
  /** Registers the listener for every message the worker sends, unchecked (the caller parses). */
  onMessage(listener: (message: unknown) => void): void;
  /** Registers the listener for each non-empty line the worker writes to stderr. */
  onStderrLine(listener: (line: string) => void): void;
  /** Registers the listener called once, when the process has exited. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
}

/** A way of starting worker processes and reaching them. */
export interface WorkerTransport {
  /** A short name for messages (`node-ipc`). */
  readonly name: string;
  /**
   * Starts one worker process for `config` and returns its link once the process exists (its
   * configuration is sent by the caller, as the wire format's first message). The process runs
   * in a session of its own: a Ctrl-C in the terminal signals the whole foreground process
   * group, and must not kill a worker under the controller's orderly stop. It must exit by
   * itself when the controller goes away. Throws if no process could be started.
   */
  start(config: WorkerConfig): WorkerLink;
}
