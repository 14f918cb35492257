/**
 * procrastinate's own schema and statements, asked of procrastinate itself (the installed
 * package's `schema.sql` and `queries.sql`, printed by the native worker module).
 */
import { librarySql } from '../program/python-native.js';

/** The Python module that runs procrastinate's worker as a native worker. */
export const PROCRASTINATE_MODULE = 'leaseproof_client.targets.procrastinate_native';

/**
 * The task name of the run's jobs (`TASK` of the Python module). procrastinate's own periodic
 * task lives in the same table under its own name, so the audit tells the run's jobs by it.
 */
export const RUN_TASK = 'leaseproof';

/** What the module prints with `--print-sql`. */
export interface ProcrastinateSql {
  version: string;
  install: string;
  stalled: string;
  retry: string;
  queue: string;
  task: string;
}

/** procrastinate's own schema and statements, asked of procrastinate once per process. */
export const procrastinateSql = librarySql<ProcrastinateSql>(PROCRASTINATE_MODULE);

/**
 * A statement of procrastinate's with psycopg's `%(name)s` placeholders, for node-postgres:
 * each name becomes `$n` (the same name, the same number) and `values` are put in that order.
 */
export function positional(
  text: string,
  values: Record<string, unknown>,
): { text: string; values: unknown[] } {
  const names: string[] = [];
  const converted = text.replace(/%\((\w+)\)s/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for %(${name})s`);
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: converted, values: names.map((n) => values[n]) };
}
