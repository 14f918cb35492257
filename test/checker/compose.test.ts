import { describe, expect, it } from 'vitest';
import { composeVerdicts, runCheckers } from '../../src/checker/compose.js';
import { ALL_CHECKERS, checkHistory, checkerByName } from '../../src/checker/index.js';
import type { Checker, Verdict } from '../../src/checker/types.js';
import { ConfigError } from '../../src/errors.js';
import { cleanRun, staleAckAfterReclaimBothComplete } from './fixtures/anomalies.js';

function fixed(name: string, valid: Verdict): Checker {
  return {
    name,
    id: 'I1',
    description: 'test',
    check: (_history, options) => ({
      checker: name,
      id: 'I1',
      valid,
      counts: {},
      evidence: [],
      epsilonMs: options?.epsilonMs ?? 0,
    }),
  };
}

const throwing: Checker = {
  name: 'throws',
  id: 'I2',
  description: 'always throws',
  check() {
    throw new Error('boom');
  },
};

describe('composition', () => {
  it('merges verdicts invalid > unknown > valid', () => {
    expect(composeVerdicts([])).toBe('valid');
    expect(composeVerdicts(['valid', 'valid'])).toBe('valid');
    expect(composeVerdicts(['valid', 'unknown', 'valid'])).toBe('unknown');
    expect(composeVerdicts(['unknown', 'invalid', 'valid'])).toBe('invalid');
    // n/a (the queue does not promise it) composes like valid, and a composite is never n/a.
    expect(composeVerdicts(['n/a', 'valid'])).toBe('valid');
    expect(composeVerdicts(['n/a', 'n/a'])).toBe('valid');
    expect(composeVerdicts(['n/a', 'unknown'])).toBe('unknown');
    expect(composeVerdicts(['invalid', 'unknown'])).toBe('invalid');
  });

  it('turns a checker that throws into unknown, with the error as why', () => {
    const result = runCheckers([fixed('ok', 'valid'), throwing], cleanRun());
    expect(result.valid).toBe('unknown');
    expect(result.results[1]).toMatchObject({
      checker: 'throws',
      id: 'I2',
      valid: 'unknown',
      why: 'the checker threw: boom',
    });
    expect(runCheckers([throwing, fixed('bad', 'invalid')], cleanRun()).valid).toBe('invalid');
  });

  it('passes resolved options to every checker', () => {
    const result = runCheckers([fixed('ok', 'valid')], cleanRun(), { epsilonMs: 7 });
    expect(result.results[0]?.epsilonMs).toBe(7);
    expect(result.options).toEqual({
      epsilonMs: 7,
      staleAck: 'strict',
      strictCauses: false,
      maxEvidence: 100,
    });
  });

  it('refuses options no checker can use', () => {
    expect(() => runCheckers([], cleanRun(), { epsilonMs: -1 })).toThrow(ConfigError);
    expect(() => runCheckers([], cleanRun(), { staleAck: 'loose' as 'strict' })).toThrow(
      /staleAck/,
    );
  });
});

describe('checkHistory', () => {
  it('runs the nine checkers in invariant order', () => {
    const result = checkHistory(cleanRun());
    expect(result.valid).toBe('valid');
    expect(result.results.map((r) => r.id)).toEqual([
      'I1',
      'I2',
      'I3',
      'I4',
      'I5',
      'I6',
      'I7',
      'I8',
      'I9',
    ]);
    expect(result.results.every((r) => r.epsilonMs === 5)).toBe(true);
  });

  it('is invalid when one checker is', () => {
    const result = checkHistory(staleAckAfterReclaimBothComplete());
    expect(result.valid).toBe('invalid');
    const invalid = result.results.filter((r) => r.valid === 'invalid').map((r) => r.checker);
    expect(invalid).toEqual(['no-stale-ack', 'single-completion']);
  });

  it('finds checkers by name or id', () => {
    expect(checkerByName('timely-recovery')?.id).toBe('I8');
    expect(checkerByName('I3')?.name).toBe('no-lost-job');
    expect(checkerByName('nope')).toBeUndefined();
    expect(new Set(ALL_CHECKERS.map((c) => c.name)).size).toBe(9);
  });
});
