/**
 * The process's own randomness, seeded for the length of a simulated run: `Math.random` and
 * `crypto.randomUUID` (an adapter that names its jobs in JavaScript, as the pg-boss adapter does,
 * would otherwise give every run of a seed other job ids). `crypto.randomUUID` is replaced on the
 * module and the named ESM bindings are synced (`syncBuiltinESMExports`), so `import {
 * randomUUID } from 'node:crypto'` sees it too. A library that copied the function out of the
 * module when it loaded (`const { randomUUID } = require('node:crypto')`) keeps the real one:
 * its ids are the one thing a seed does not fix, and the determinism test would show it.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { Random } from '../../random.js';

/** Seeds the process's randomness with `seed`; the function returned puts it back. */
export function seedRandomness(seed: number): () => void {
  const random = new Random(seed);
  const realRandom = Math.random;
  const realUuid = crypto.randomUUID;
  Math.random = () => random.next();
  crypto.randomUUID = () => uuidFrom(random);
  syncBuiltinESMExports();
  return () => {
    Math.random = realRandom;
    crypto.randomUUID = realUuid;
    syncBuiltinESMExports();
  };
}

/** A version-4 UUID from `random`. */
function uuidFrom(random: Random): `${string}-${string}-${string}-${string}-${string}` {
  const hex = Array.from({ length: 32 }, () => random.int(0, 15).toString(16));
  hex[12] = '4';
  hex[16] = ((random.int(0, 15) & 0x3) | 0x8).toString(16);
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
