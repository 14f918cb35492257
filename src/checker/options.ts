import { ConfigError } from '../errors.js';
import type { History } from '../history/types.js';
import type { CheckOptions } from './types.js';

/**
 * Defaults: ε = 5 ms — a few ms, as design.md has it: above the sub-millisecond jitter of a
 * database timestamp's round trip through interval arithmetic, well below any lease, heartbeat
 * or poll interval a scenario uses (tens of ms at the least), so it hides no real violation.
 */
export const DEFAULT_CHECK_OPTIONS: Readonly<CheckOptions> = Object.freeze({
  epsilonMs: 5,
  staleAck: 'strict',
  strictCauses: false,
  maxEvidence: 100,
});

/** Fills in defaults and rejects values no checker can use. */
export function resolveOptions(options: Partial<CheckOptions> = {}): CheckOptions {
  const resolved = { ...DEFAULT_CHECK_OPTIONS, ...stripUndefined(options) };
  if (!Number.isFinite(resolved.epsilonMs) || resolved.epsilonMs < 0) {
    throw new ConfigError(`epsilon must be a number of ms >= 0, got ${String(options.epsilonMs)}`);
  }
  if (resolved.staleAck !== 'strict' && resolved.staleAck !== 'fenced') {
    throw new ConfigError(
      `staleAck must be 'strict' or 'fenced', got ${String(resolved.staleAck)}`,
    );
  }
  if (!Number.isInteger(resolved.maxEvidence) || resolved.maxEvidence < 0) {
    throw new ConfigError(`maxEvidence must be an integer >= 0, got ${resolved.maxEvidence}`);
  }
  return resolved;
}

/**
 * The tolerance for comparing a database time with a controller-side time (a worker or nemesis
 * event): ε plus the uncertainty of the clock offset those times were moved with.
 */
export function controllerTolerance(history: History, options: CheckOptions): number {
  return options.epsilonMs + Math.max(0, history.header.clockUncertaintyMs);
}

function stripUndefined(options: Partial<CheckOptions>): Partial<CheckOptions> {
  const out: Partial<CheckOptions> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
