import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { AdapterError } from '../../queue/adapter-error.js';

/** How to start a program that answers requests in JSON lines. */
export interface LineProgramSpec {
  /** The executable and its arguments; started directly, no shell in between. */
  command: readonly string[];
  /** Working directory (default: the current one). */
  cwd?: string | undefined;
  /** Environment added to this process's own. */
  env?: Readonly<Record<string, string>> | undefined;
  /** What to call it in messages (`program "python tiny_queue.py"`). */
  label: string;
}

/** One answer: the result, and the database backend pid the call ran on when the program said. */
export interface LineAnswer {
  ok: unknown;
  pid?: number;
}

// How many of the program's last stderr lines an error quotes.
const STDERR_TAIL = 12;

/**
 * A child process spoken to in JSON lines: one request per line on its stdin, one answer per line
 * on its stdout (`{"id", "ok"}` or `{"id", "error"}`), stderr free text. Requests go one at a time,
 * in order, so a program may answer them with plain blocking code.
 *
 * A request that gets no answer within its bound (a connection stuck behind a cut network) is
 * failed, and the program is killed: its state is unknown, and the next request starts a fresh
 * one — as leaseproof's own worker destroys a connection that outlived its bound. The program
 * reads EOF on stdin when this process goes away, however it goes (SIGKILL included), and must
 * then exit; `stop()` (idempotent) closes stdin and kills it.
 */
export class LineProgram {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { child: ChildProcess; resolve: (answer: LineAnswer) => void; reject: (error: Error) => void }
  >();
  private tail: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private readonly onProcessExit = (): void => {
    this.child?.kill('SIGKILL');
  };

  constructor(private readonly spec: LineProgramSpec) {}

  /** The running program's pid (undefined before the first request or after a kill). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Sends `request` (an object; `id` is added) and resolves with the answer's `ok` value. Rejects
   * with an `AdapterError` on an `error` answer, a bound passed, a line that is not an answer, or
   * a program that exits.
   */
  request(request: Record<string, unknown>, boundMs: number): Promise<LineAnswer> {
    const turn = this.queue.then(() => this.send(request, boundMs));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Closes the program's stdin and kills it; later requests are refused. Idempotent. */
  stop(): void {
    this.stopped = true;
    this.kill();
  }

  private send(request: Record<string, unknown>, boundMs: number): Promise<LineAnswer> {
    if (this.stopped) {
      return Promise.reject(new AdapterError(`${this.spec.label} was stopped`));
    }
    const child = this.running();
    const id = this.nextId++;
    return new Promise<LineAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // The program is somewhere inside the call; only a fresh one is in a known state.
        this.kill();
        reject(
          new AdapterError(
            `${this.spec.label}: no answer to "${String(request.op)}" within ${boundMs} ms ` +
              '(the program was stopped; the next call starts it again)',
          ),
        );
      }, boundMs);
      this.pending.set(id, {
        child,
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      child.stdin?.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  private running(): ChildProcess {
    if (this.child !== undefined) return this.child;
    const [file, ...args] = this.spec.command;
    if (file === undefined) throw new AdapterError(`${this.spec.label}: empty command`);
    const child = spawn(file, args, {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      // A session of its own, as every worker's: a terminal's Ctrl-C signals the foreground process
      // group, and must not kill the controller's program under its orderly stop.
      detached: true,
    });
    this.child = child;
    this.tail = [];
    // An idle program must not keep leaseproof alive: while a request is out, its timer does.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      (stream as { unref?: () => void } | null)?.unref?.();
    }
    process.once('exit', this.onProcessExit);
    child.stdin?.on('error', () => undefined);
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(child, line));
    createInterface({ input: child.stderr }).on('line', (line) => {
      this.tail.push(line);
      if (this.tail.length > STDERR_TAIL) this.tail.shift();
      // The worker's stderr is what leaseproof quotes when a worker fails: keep the program's.
      process.stderr.write(`${line}\n`);
    });
    child.on('error', (error) => this.failAll(child, `could not start: ${error.message}`));
    child.on('exit', (code, signal) =>
      this.failAll(child, `exited (${signal ?? `code ${String(code)}`})`),
    );
    return child;
  }

  private onLine(child: ChildProcess, line: string): void {
    if (line.trim() === '') return;
    let message: { id?: unknown; ok?: unknown; error?: unknown; pid?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      this.failAll(child, `wrote a line that is not JSON on stdout: ${line.slice(0, 200)}`);
      this.kill();
      return;
    }
    const waiter = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (waiter === undefined) {
      this.failAll(child, `answered a request it was not asked: ${line.slice(0, 200)}`);
      this.kill();
      return;
    }
    this.pending.delete(message.id as number);
    if (message.error !== undefined) {
      const text =
        typeof message.error === 'string' ? message.error : JSON.stringify(message.error);
      waiter.reject(new AdapterError(`${this.spec.label}: ${text}`));
    } else if (!('ok' in message)) {
      waiter.reject(new AdapterError(`${this.spec.label}: an answer without "ok" or "error"`));
    } else {
      waiter.resolve({
        ok: message.ok,
        ...(typeof message.pid === 'number' && { pid: message.pid }),
      });
    }
  }

  private failAll(child: ChildProcess, why: string): void {
    if (this.child === child) {
      this.child = undefined;
      process.off('exit', this.onProcessExit);
    }
    // Only this child's requests: an old program killed after a timeout may exit while a new
    // one is already answering.
    const mine = [...this.pending].filter(([, waiter]) => waiter.child === child);
    if (mine.length === 0) return;
    const stderr = this.tail.length > 0 ? `; its last stderr lines:\n${this.tail.join('\n')}` : '';
    const error = new AdapterError(`${this.spec.label} ${why}${stderr}`);
    for (const [id, waiter] of mine) {
      this.pending.delete(id);
      waiter.reject(error);
    }
  }

  private kill(): void {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    process.off('exit', this.onProcessExit);
    child.stdin?.end();
    child.kill('SIGKILL');
  }
}
