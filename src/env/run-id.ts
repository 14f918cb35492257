import { randomBytes } from 'node:crypto';

/**
 * A run id: lower-case letters, digits and `_`, so it can be part of a database, role or proxy
 * name without quoting, and sortable by start time.
 */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', 't').slice(0, 15);
  return `${stamp}_${randomBytes(3).toString('hex')}`;
}

/** The prefix of every database the harness creates; nothing without it is ever dropped. */
export const OWNED_DATABASE_PREFIX = 'leaseproof_';
