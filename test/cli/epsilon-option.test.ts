import { describe, expect, it } from 'vitest';
import { epsilonOption, parseEpsilon } from '../../src/cli/epsilon-option.js';
import { ConfigError } from '../../src/errors.js';

describe('--epsilon', () => {
  it('takes a bare number as milliseconds', () => {
    expect(parseEpsilon('5')).toBe(5);
    expect(parseEpsilon('0')).toBe(0);
    expect(parseEpsilon('2.5')).toBe(2.5);
  });

  it('takes a duration as scenario files write them', () => {
    expect(parseEpsilon('5ms')).toBe(5);
    expect(parseEpsilon('1s')).toBe(1_000);
    expect(parseEpsilon('250us')).toBe(0.25);
    expect(parseEpsilon('1m30s')).toBe(90_000);
  });

  it('refuses anything else with one usage error that names the flag and its forms', () => {
    for (const bad of ['', 'soon', '-5', '-5ms', '5 ms', '1e3', '0x10', 'Infinity', '5sec']) {
      expect(() => parseEpsilon(bad), bad).toThrow(ConfigError);
      expect(() => parseEpsilon(bad), bad).toThrow(
        `--epsilon takes milliseconds or a duration: a number of ms (20, 0.5) or a duration ` +
          `(20ms, 1s, 250us); got "${bad}"`,
      );
    }
  });

  it('is one option, with the forms in its help', () => {
    const option = epsilonOption('default 5ms');
    expect(option.flags).toBe('--epsilon <ms|duration>');
    expect(option.description).toBe(
      'tolerance ε, a number of ms (20, 0.5) or a duration (20ms, 1s, 250us); default 5ms',
    );
  });
});
