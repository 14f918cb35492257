/**
 * One PGlite for a test file's simulated runs: started before its tests (seconds), stopped after
 * them. Call at the top level of the file; the returned function gives the started database.
 */
import { afterAll, beforeAll } from 'vitest';
import { SimDatabase } from '../../src/sim/pglite/sim-database.js';

/** Starts a SimDatabase for this file's tests and stops it after them. */
export function useSimDatabase(): () => SimDatabase {
  let db: SimDatabase | undefined;
  beforeAll(async () => {
    db = await SimDatabase.start();
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
  });
  return () => {
    if (db === undefined) throw new Error('the SimDatabase is used before beforeAll started it');
    return db;
  };
}
