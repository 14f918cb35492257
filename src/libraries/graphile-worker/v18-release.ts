/**
 * What graphile-worker 0.18's adapter and its Node 22 programs (the worker target and the one-shot
 * admin program in `src/native/`) agree on. It lives here, beside the adapter, so that the programs
 * import the adapter's room and never the other way round.
 */
import { join } from 'node:path';

/** The graphile-worker release `graphile-worker@0.18` runs: the newest when it was written. */
export const GRAPHILE_18_VERSION = '0.18.0';

/** The environment variable that names the folder graphile-worker 0.18 is installed in. */
export const GRAPHILE_18_DIR_ENV = 'LEASEPROOF_GRAPHILE_WORKER_DIR';

/** Where graphile-worker `version` is installed, relative to the project root. */
export function graphile18ToolsDir(version: string = GRAPHILE_18_VERSION): string {
  return join('.tools', 'npm', `graphile-worker@${version}`);
}

/** What the controller asks the admin program: graphile-worker's own migrations. */
export interface Graphile18Request {
  op: 'migrate';
  databaseUrl: string;
  applicationName: string;
}
