import { createRequire } from 'node:module';

/** leaseproof's own version, from package.json (recorded in history headers). */
export const VERSION: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version;
