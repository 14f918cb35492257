/**
 * One process of `SimPool`: its own PGlite and simulated clock, each queue loaded once, and
 * scenarios run one at a time as the parent sends them (as `simulateRun` in process). It ends
 * when the parent does: its IPC channel closing is the signal.
 */
import { loadQueueAdapter } from '../../libraries/load-adapter.js';
import type { QueueAdapter } from '../../queue/types.js';
import { scenarioToRunPlan } from '../../scenario/load-scenario.js';
import { SimDatabase } from './sim-database.js';
import type { FromChild, ToChild } from './sim-pool.js';
import { simulateRun } from './sim-run.js';
import { SimulationBoundError } from './sim-bounds.js';
import { simPlanOf } from './scenario-sim.js';

const send = (message: FromChild): void => void process.send?.(message);

const db = await SimDatabase.start();
const queues = new Map<string, Promise<QueueAdapter>>();
const queue = (name: string): Promise<QueueAdapter> => {
  let loaded = queues.get(name);
  if (loaded === undefined) queues.set(name, (loaded = loadQueueAdapter(name)));
  return loaded;
};
// Runs take turns: the clock is this process's.
let turn: Promise<unknown> = Promise.resolve();
process.on('message', (message: ToChild) => {
  turn = turn.then(async () => {
    try {
      const plan = scenarioToRunPlan(message.scenario, { queue: message.queue });
      const history = await simulateRun(db, {
        ...simPlanOf(plan, await queue(message.queue)),
        ...(message.bounds !== undefined && { bounds: message.bounds }),
      });
      send({ type: 'done', id: message.id, history });
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      // A run a bound cut short sends what it recorded: its verdict is unknown, not missing.
      const history = error instanceof SimulationBoundError ? error.history : undefined;
      send({
        type: 'failed',
        id: message.id,
        name: e.name,
        message: e.message,
        ...(history !== undefined && { history }),
      });
    }
  });
});
process.on('disconnect', () => {
  void db.stop().finally(() => process.exit(0));
});
send({ type: 'ready' });
