/**
 * What pg-boss 12's adapter and its Node 22 programs (the worker target and the one-shot admin
 * program in `src/native/`) agree on. It lives here, beside the adapter, so that the programs
 * import the adapter's room and never the other way round.
 */

/** What the controller asks. */
export type PgBoss12Request =
  | {
      op: 'setup';
      databaseUrl: string;
      applicationName: string;
      queue: { expireInSeconds: number; retryLimit: number; retryDelay: number };
    }
  | {
      op: 'enqueue';
      databaseUrl: string;
      applicationName: string;
      jobs: { id: string; data: Record<string, unknown>; retryLimit?: number }[];
    };
