// Every grant opens a new claim, whoever gets it and whatever its token: a queue that reuses
// tokens re-grants an expired job to the same worker under the same token, and that grant —
// written by the worker's claim call — was read as an extension of the expired claim ("a
// resurrected lease", and zombie effects after the loss).
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS } from '../../src/checker/index.js';
import { deriveHistory } from '../../src/history/derive.js';
import { sameWorkerRegrant } from './fixtures/anomalies.js';
import { check } from './support.js';

describe('a re-grant to the same worker under the same token', () => {
  it('is a second claim: the first expired, the second was granted and acked', () => {
    const derived = deriveHistory(sameWorkerRegrant());
    const claims = derived.jobs.get('1')!.claims;
    expect(claims.map((c) => [c.worker, c.holder, c.end])).toEqual([
      ['w1', 'a', 'expired'],
      ['w1', 'a', 'acked'],
    ]);
    expect(claims[0]!.extensions).toEqual([]);
  });

  it('leaves every checker valid (no resurrected lease, no zombie)', () => {
    for (const checker of ALL_CHECKERS) {
      const result = check(checker, sameWorkerRegrant(), { strictCauses: true });
      expect([checker.name, result.valid, result.evidence.map((e) => e.message)]).toEqual([
        checker.name,
        'valid',
        [],
      ]);
    }
  });
});
