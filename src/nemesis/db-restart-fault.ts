import { EnvironmentError } from '../errors.js';
import { BaseFault } from './base-fault.js';
import type { NemesisContext } from './types.js';

/** How the database goes away: a server restart, or every connection dropped (failover). */
export type DbRestartMode = 'restart' | 'terminate';

/**
 * The database goes away for everyone at once: the server restarts (`restart`: every connection
 * breaks, the data survives), or every backend of the run's databases is terminated
 * (`terminate`: what clients see of a failover). It stays unreachable for `downMs`.
 *
 * The fault ends itself once the database is back, so it is run without `forMs`: its window in
 * the history is the real outage, start-up time included, not a planned duration.
 */
export class DbRestartFault extends BaseFault {
  constructor(
    readonly mode: DbRestartMode,
    readonly downMs = 0,
  ) {
    super('db-restart', 'db', { mode, downMs });
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    const { env } = ctx;
    if (env.restartDatabase === undefined) {
      throw new EnvironmentError(
        `the ${env.provider} environment cannot restart its database (db-restart); use --env embedded`,
      );
    }
    await env.restartDatabase({ mode: this.mode, downMs: this.downMs });
    await this.heal(ctx);
  }

  protected restore(): Promise<void> {
    // Nothing to undo: `restartDatabase` brings the database back before it returns.
    return Promise.resolve();
  }
}
