import { spawn, type ChildProcess } from 'node:child_process';
import { ensureToxiproxyServer, type ToxiproxyInstallOptions } from './toxiproxy-install.js';
import { freePort } from './free-port.js';
import { waitUntil } from './readiness.js';
import { guardChild, unguardChild } from './child-guard.js';
import {
  forgetProcess,
  recordProcess,
  stopProcess,
  type ProcessRecord,
} from './process-registry.js';
import { EnvironmentError } from '../errors.js';

/** Options for starting a local `toxiproxy-server`. */
export interface ToxiproxyServerOptions extends ToxiproxyInstallOptions {
  /** The run that owns it (for the leftover record). */
  runId: string;
  /** How long to wait for the API to answer (default 15 s). */
  startTimeoutMs?: number;
}

/** A running local `toxiproxy-server` process. */
export class StartedToxiproxyServer implements AsyncDisposable {
  private stopping: Promise<void> | undefined;

  private constructor(
    /** The API URL, `http://127.0.0.1:<port>`. */
    readonly url: string,
    /** The binary it runs. */
    readonly binary: string,
    private readonly child: ChildProcess,
    private readonly record: ProcessRecord,
  ) {}

  /** Finds (or installs) the binary, starts it on a free loopback port, waits for its API. */
  static async start(options: ToxiproxyServerOptions): Promise<StartedToxiproxyServer> {
    const binary = await ensureToxiproxyServer(options);
    const port = await freePort();
    const child = spawn(binary.path, ['-host', '127.0.0.1', '-port', String(port)], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // A session of its own: a Ctrl-C signals the terminal's whole foreground process group,
      // and the proxies must outlive it until leaseproof has healed them and stopped the run.
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) {
      throw new EnvironmentError(`could not start ${binary.path}`);
    }
    guardChild(pid, 'SIGKILL');
    const record = await recordProcess({
      runId: options.runId,
      kind: 'toxiproxy',
      pid,
      ownerPid: process.pid,
      stopSignal: 'SIGTERM',
    });
    // Toxiproxy logs a JSON line per API call; keep only the tail, for error messages.
    let tail: string[] = [];
    child.stderr?.on('data', (chunk: Buffer) => {
      tail = [...tail, ...chunk.toString().split('\n').filter(Boolean)].slice(-10);
    });
    let exited = false;
    child.once('exit', () => (exited = true));
    const server = new StartedToxiproxyServer(
      `http://127.0.0.1:${port}`,
      binary.path,
      child,
      record,
    );
    try {
      await waitUntil(
        `toxiproxy-server (${binary.path}) on 127.0.0.1:${port}`,
        async () => {
          if (exited) throw new EnvironmentError('toxiproxy-server exited during start');
          const response = await fetch(`${server.url}/version`);
          return response.ok;
        },
        { timeoutMs: options.startTimeoutMs ?? 15_000, describeLast: () => tail.join('\n') },
      );
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  /** The process id (for tests that check the process table). */
  get pid(): number {
    return this.record.pid;
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s); idempotent. */
  async stop(): Promise<void> {
    this.stopping ??= (async () => {
      await stopProcess(this.record.pid, 'SIGTERM', 5_000);
      unguardChild(this.record.pid);
      this.child.stderr?.destroy();
      await forgetProcess(this.record);
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
