import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { NemesisEvent } from '../../src/history/types.js';
import type { RunPlan } from '../../src/scenario/execute-run.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { units } from '../support/queue-run.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

const plan: RunPlan = {
  scenario: 'plan-reuse',
  seed: 1,
  queue: 'reference',
  workers: 2,
  lease: { durationMs: 1_000, heartbeatMs: 200, extendByMs: 1_000, pollMs: 50 },
  plans: Array.from({ length: 6 }, () => units(3, 40)),
  faults: [{ kind: 'pause', atMs: 100, forMs: 300, worker: 'w1' }],
  drainTimeoutMs: 20_000,
};

describe('a run plan', () => {
  it('runs twice as it is: each run starts and heals its own faults', async () => {
    const before = JSON.stringify(plan);
    for (let run = 0; run < 2; run += 1) {
      const { history, drained, result } = await runAndCheck(env, plan);
      expect(drained).toBe(true);
      expect(result.valid).not.toBe('invalid');
      const nemesis = history.events.filter((e): e is NemesisEvent => e.type === 'nemesis');
      expect(nemesis.map((e) => `${e.phase} ${e.fault} ${e.target}`)).toEqual([
        'start pause w1',
        'end pause w1',
      ]);
    }
    expect(JSON.stringify(plan)).toBe(before);
  });
});
