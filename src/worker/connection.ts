import pg from 'pg';
import type { SqlClient } from '../queue/types.js';

/** Thrown when a statement did not finish in time: its outcome is unknown (`info`). */
export class StatementTimeoutError extends Error {
  constructor(ms: number) {
    super(`no reply within ${ms}ms; the statement may or may not have committed`);
    this.name = 'StatementTimeoutError';
  }
}

/**
 * One connection that a fault may cut at any moment. Each statement is bounded on the client
 * side (a blackholed connection never answers, and no server-side timeout can reach through a
 * partition); a statement that times out or errors breaks the connection, and the next
 * statement opens a fresh one. `application_name` is the worker id, so the database's own
 * records say which worker did what.
 */
export class ResilientConnection implements SqlClient {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly pids = new WeakMap<pg.Client, number>();
  private lastPid: number | undefined;

  constructor(
    private readonly url: string,
    private readonly applicationName: string,
    private readonly timeoutMs: number,
    /**
     * Called each time a connection is established. A worker reports it: after a fault, a
     * worker is back at work when it reaches the database again, not when its first attempt
     * failed (see `derive-work.ts`).
     */
    private readonly onConnect: () => void = () => undefined,
  ) {}

  async query<R extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }> {
    const client = await this.connected();
    this.lastPid = this.pids.get(client);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StatementTimeoutError(this.timeoutMs)), this.timeoutMs);
    });
    try {
      return await Promise.race([client.query<R>(sql, params), timeout]);
    } catch (error) {
      this.discard(client);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The server-side pid (`pg_backend_pid()`) of the connection the last statement was sent on,
   * or undefined before the first. Read after a call, it names the connection the call's last
   * statement ran on — the one whose audit rows are that call's writes. Through Toxiproxy it is
   * still the server's backend, which is what the audit trigger sees.
   */
  get backendPid(): number | undefined {
    return this.lastPid;
  }

  /** Closes the connection; the next query reconnects. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connected(): Promise<pg.Client> {
    if (this.client !== undefined) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        application_name: this.applicationName,
        connectionTimeoutMillis: this.timeoutMs,
        keepAlive: true,
      });
      // An 'error' on an idle client (the proxy reset it) must not crash the worker; the next
      // statement notices the broken connection and replaces it.
      client.on('error', () => this.discard(client));
      client.on('end', () => this.discard(client));
      try {
        await client.connect();
        this.pids.set(client, await backendPidOf(client));
      } catch (error) {
        this.discard(client);
        throw error;
      }
      this.client = client;
      this.onConnect();
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private discard(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    // Destroying the socket, not `end()`: a blackholed connection would never finish a
    // graceful close.
    (
      client as unknown as { connection?: { stream?: { destroy(): void } } }
    ).connection?.stream?.destroy();
  }
}

/**
 * The backend pid, once per connection. The server sends it in the startup handshake
 * (BackendKeyData, the same number `pg_backend_pid()` returns), which node-postgres keeps as
 * `processID`: no extra round trip on every reconnect of a loaded machine. The query is the
 * fallback for a client that did not keep it.
 */
async function backendPidOf(client: pg.Client): Promise<number> {
  const kept = (client as unknown as { processID?: unknown }).processID;
  if (typeof kept === 'number' && kept > 0) return kept;
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Number(rows[0]?.pid);
}
