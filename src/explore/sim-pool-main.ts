/**
 * One process of `SimPool`: its own PGlite and simulated clock, the queue loaded once, and
 * scenarios run one at a time as the parent sends them (`simRun`, the in-process run). It ends
 * when the parent does: its IPC channel closing is the signal.
 */
import { loadQueueAdapter } from '../adapters/load-adapter.js';
import { SimDatabase } from '../sim/pglite/sim-database.js';
import type { FromChild, ToChild } from './sim-pool.js';
import { simRun } from './sim-run.js';

const send = (message: FromChild): void => void process.send?.(message);

const queue = await loadQueueAdapter(process.argv[2] ?? 'reference');
const db = await SimDatabase.start();
const run = simRun(db, queue);
// Runs take turns: the clock is this process's.
let turn: Promise<unknown> = Promise.resolve();
process.on('message', (message: ToChild) => {
  turn = turn.then(async () => {
    try {
      send({ type: 'done', id: message.id, run: await run(message.scenario, message.queue) });
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      send({ type: 'failed', id: message.id, name: e.name, message: e.message });
    }
  });
});
process.on('disconnect', () => {
  void db.stop().finally(() => process.exit(0));
});
send({ type: 'ready' });
