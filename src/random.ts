import { unsafeUniformIntDistribution, xoroshiro128plus, type RandomGenerator } from 'pure-rand';

/**
 * A seeded source of randomness (pure-rand's xoroshiro128+, as fast-check uses): every random
 * choice of a run comes from the scenario's seed, so a run can be replayed.
 */
export class Random {
  private readonly generator: RandomGenerator;

  constructor(readonly seed: number) {
    this.generator = xoroshiro128plus(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    const high = unsafeUniformIntDistribution(0, (1 << 26) - 1, this.generator);
    const low = unsafeUniformIntDistribution(0, (1 << 27) - 1, this.generator);
    return (high * 2 ** 27 + low) / 2 ** 53;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return unsafeUniformIntDistribution(min, max, this.generator);
  }

  /** A standard normal variate (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
