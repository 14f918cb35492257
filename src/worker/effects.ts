import { ResilientConnection } from './connection.js';

/**
 * The harness's record of side effects. Each row is written the moment a handler performs its
 * effect, stamped by the database (`clock_timestamp()`), over a direct connection that the
 * worker's own network faults do not cut: a worker partitioned from its queue still sends
 * its mail, and that is exactly the duplicate the checkers must see.
 */
export const EFFECTS_DDL = `
CREATE TABLE IF NOT EXISTS leaseproof_effects (
  id        bigserial PRIMARY KEY,
  job_id    text        NOT NULL,
  worker_id text        NOT NULL,
  token     text        NOT NULL,
  unit      integer     NOT NULL,
  at        timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

/** Records effects for one worker. */
export class EffectRecorder {
  private readonly connection: ResilientConnection;

  constructor(
    url: string,
    private readonly workerId: string,
  ) {
    // application_name is the worker id on every connection a worker opens, this one too.
    this.connection = new ResilientConnection(url, workerId, 10_000);
  }

  /** Inserts one effect row; true when it was recorded. */
  async record(jobId: string, token: string, unit: number): Promise<boolean> {
    try {
      await this.connection.query(
        'INSERT INTO leaseproof_effects (job_id, worker_id, token, unit) VALUES ($1, $2, $3, $4)',
        [jobId, this.workerId, token, unit],
      );
      return true;
    } catch {
      return false;
    }
  }

  /** Opens its connection ahead of the first effect; one that fails is retried by `record`. */
  async connect(): Promise<void> {
    await this.connection.query('SELECT 1').catch(() => undefined);
  }

  /** Closes its connection. */
  async close(): Promise<void> {
    await this.connection.close();
  }
}
