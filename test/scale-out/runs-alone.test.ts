import { describe, expect, it } from 'vitest';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';
import { runsAlone } from '../../src/scale-out/runs-alone.js';

const planOf = async (name: string) =>
  scenarioToRunPlan(await loadScenario(`scenarios/${name}.yaml`), { queue: 'reference' });

describe('runs that need the machine to themselves', () => {
  it('a db-restart scenario and the CPU-bound-handler scenarios run alone, and say why', async () => {
    expect(runsAlone(await planOf('database-restart'))).toMatch(/db-restart fault/);
    for (const name of ['cpu-bound-handler', 'lease-shorter-than-p999', 'pause-past-lease']) {
      expect(runsAlone(await planOf(name))).toMatch(/handler burns CPU/);
    }
  });

  it('the others share the machine', async () => {
    for (const name of ['crash-mid-handler', 'blocked-event-loop', 'partition-during-heartbeats']) {
      expect(runsAlone(await planOf(name))).toBeUndefined();
    }
  });
});
