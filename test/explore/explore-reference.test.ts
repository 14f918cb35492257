// The reference queue under explore, for real: no false alarm in a handful of generated
// schedules, and the `leaseproof/vitest` entry used as a user would, in a test of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { explore } from '../../src/explore/explore.js';
import type { ExploreProgress } from '../../src/explore/types.js';
import { leaseProperty } from '../../src/vitest.js';
import { toxiproxyFailure } from '../../src/env/toxiproxy-failure.js';
import { EnvironmentError, describeError } from '../../src/errors.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

describe('explore against the reference', () => {
  it('survives 5 generated schedules with no false alarm', async () => {
    const seen: ExploreProgress[] = [];
    const result = await explore({
      queue: 'reference',
      runs: 5,
      seed: 2026,
      budgetMs: 120_000,
      env,
      onProgress: (p) => seen.push(p),
    });
    const alarms = seen.filter((p) => p.last?.valid === 'invalid').map((p) => p.last?.violated);
    expect(alarms).toEqual([]);
    expect(result).toMatchObject({ failed: false, runsDone: 5, interrupted: false });
    expect(seen.map((p) => p.runsDone)).toEqual([1, 2, 3, 4, 5]);
  }, 150_000);

  it('stops at a harness error and says so, instead of shrinking it as a counterexample', async () => {
    // A real environment whose proxy server refuses the second proxy of a run, as Toxiproxy
    // refused a colliding toxic (HTTP 409) in the report that led here.
    let proxies = 0;
    const refusing: StartedEnvironment = Object.create(env) as StartedEnvironment;
    refusing.createProxy = async (name) => {
      proxies += 1;
      if (proxies === 2) {
        throw toxiproxyFailure(`add proxy "${name}"`, {
          message: 'Request failed with status code 409',
          response: { status: 409, data: { error: 'proxy already exists', status: 409 } },
        });
      }
      return env.createProxy(name);
    };
    const error: unknown = await explore({
      queue: 'reference',
      runs: 5,
      seed: 1,
      budgetMs: 60_000,
      env: refusing,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(describeError(error)).toMatch(
      /^explore stopped after 0 run\(s\): the next run failed in the harness, not in the queue \(seed 1, drawn scenario \{.*\}\)\n {2}caused by: could not add proxy "w2": Toxiproxy answered HTTP 409 "proxy already exists"/,
    );
  }, 60_000);

  it('leaseProperty (leaseproof/vitest) holds for the reference in a few lines', async () => {
    const result = await leaseProperty({ queue: 'reference', runs: 3, seed: 7, env });
    expect(result.failed).toBe(false);
  }, 120_000);
});
