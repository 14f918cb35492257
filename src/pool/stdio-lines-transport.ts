import { spawn } from 'node:child_process';
import { findLibfaketime, ProgramClock } from '../libraries/program/program-clock.js';
import { EnvironmentError } from '../errors.js';
import type { NativeProgram } from '../queue/types.js';
import type { ClockSkew, ControlMessage, WorkerConfig } from '../worker/types.js';
import { monotonicNow } from '../worker/types.js';
import type { WorkerLink, WorkerTransport } from './worker-transport.js';

/** How often a drifting clock's offset file is rewritten (ms). */
const DRIFT_REWRITE_MS = 50;

/**
 * A worker program in any language, reached by newline-delimited JSON over its stdin and stdout
 * (in the manner of Jepsen's Maelstrom): control messages go in one per line, and each line it
 * writes to stdout is one wire-format message (`{"type":"events","events":[…]}`). stderr is its
 * free log. The program is started directly (no shell: SIGSTOP and SIGKILL reach it), in a
 * session of its own, and must exit when its stdin closes (the controller went away).
 *
 * Two things the transport does for the program, so that no client has to:
 * - **Time.** A program stamps events with CLOCK_MONOTONIC in ms (Python `time.monotonic_ns()`,
 *   Go's `CLOCK_MONOTONIC`, Java's `System.nanoTime()` on HotSpot/Linux, checked by
 *   test/env/java-install.test.ts). The transport moves them onto
 *   the controller's own monotonic scale (`performance.timeOrigin + performance.now()`), which
 *   is what Node workers stamp and what the history's clock offset is measured against.
 * - **Clock skew.** With libfaketime installed, the program runs with it preloaded and the
 *   transport writes the worker's skew to its offset file (rewritten every 50 ms while it
 *   drifts); the `clock` message is still forwarded, so the program can report its clock.
 *   Without libfaketime the program's clock is real: the adapter declares `limits.clockSkew`.
 *   A program with `clock: 'offset-file'` (a Go program) reads that file itself instead.
 */
export function stdioLinesTransport(program: NativeProgram): WorkerTransport {
  return {
    name: 'stdio-lines',
    start(config: WorkerConfig): WorkerLink {
      const clock = programClock(program);
      let drift: NodeJS.Timeout | undefined;
      const setSkew = (skew: ClockSkew | undefined): void => {
        clearInterval(drift);
        drift = undefined;
        if (clock === undefined) return;
        const offsetMs = skew?.offsetMs ?? 0;
        const ppm = skew?.driftPpm ?? 0;
        clock.set(offsetMs);
        if (ppm === 0) return;
        const since = monotonicNow();
        drift = setInterval(
          () => clock.set(offsetMs + (ppm * (monotonicNow() - since)) / 1e6),
          DRIFT_REWRITE_MS,
        );
        drift.unref();
      };
      setSkew(config.clock);
      const [file, ...args] = program.command;
      if (file === undefined) throw new EnvironmentError('a native worker program has no command');
      const child = spawn(file, args, {
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        ...(program.cwd !== undefined && { cwd: program.cwd }),
        env: { ...process.env, ...program.env, ...clock?.env() },
      });
      const pid = child.pid;
      if (pid === undefined) {
        clock?.remove();
        throw new EnvironmentError(
          `could not start worker ${config.workerId} (${program.command.join(' ')})`,
        );
      }
      let exited = false;
      child.once('exit', () => {
        exited = true;
        clearInterval(drift);
        clock?.remove();
      });
      // A broken pipe after the program died is its exit's business, not a crash of ours.
      child.stdin.on('error', () => undefined);
      const toController = monotonicNow() - Number(process.hrtime.bigint()) / 1e6;
      return {
        pid,
        get connected() {
          return !exited && child.stdin.writable;
        },
        send(message: ControlMessage) {
          if (message.type === 'clock') setSkew(message.skew);
          child.stdin.write(`${JSON.stringify(message)}\n`);
        },
        onMessage(listener) {
          onLines(child.stdout, (line) => {
            let message: unknown;
            try {
              message = JSON.parse(line);
            } catch {
              // Not JSON: handed on as it is, so the wire-format check names the line.
              listener(line);
              return;
            }
            listener(shiftTimes(message, toController));
          });
        },
        onStderrLine(listener) {
          onLines(child.stderr, listener);
        },
        onExit(listener) {
          child.once('exit', listener);
        },
      };
    },
  };
}

/** The offset file that skews this program's clock, or undefined where nothing can. */
function programClock(program: NativeProgram): ProgramClock | undefined {
  if (program.clock === 'offset-file') return new ProgramClock();
  const library = findLibfaketime();
  return library === undefined ? undefined : new ProgramClock(library);
}

function onLines(stream: NodeJS.ReadableStream, listener: (line: string) => void): void {
  let rest = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') listener(line);
  });
}

/** Moves every event's `at` (and a claim's `sentAt`) from CLOCK_MONOTONIC onto the controller's scale. */
function shiftTimes(message: unknown, offsetMs: number): unknown {
  if (typeof message !== 'object' || message === null) return message;
  const events = (message as { events?: unknown }).events;
  if (!Array.isArray(events)) return message;
  for (const event of events) {
    if (typeof event !== 'object' || event === null) continue;
    const e = event as Record<string, unknown>;
    if (typeof e.at === 'number') e.at += offsetMs;
    if (typeof e.sentAt === 'number') e.sentAt += offsetMs;
  }
  return message;
}
