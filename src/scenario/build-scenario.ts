import type { DurationDistribution } from './durations.js';
import type { DocumentPath } from './document-path.js';
import { buildFaultSpec } from './build-fault-spec.js';
import { ScenarioReader } from './scenario-reader.js';
import type { PathProblem } from './schema-problems.js';
import type { Scenario } from './scenario-types.js';
import type { StatedSettings } from '../queue/library-settings.js';

/** Defaults for what a scenario file may leave out (the schema's `default`s say the same). */
export const SCENARIO_DEFAULTS = Object.freeze({
  seed: 1,
  pollMs: 100,
  drainTimeoutMs: 30_000,
});

// The shape the schema guarantees; only what is read here is typed, where it is read.
type Raw = Record<string, unknown>;

/**
 * Turns data that passed the schema into a `Scenario`: durations into milliseconds, worker
 * numbers into ids, defaults filled in. Collects what the schema cannot say — a worker number
 * above `workers`, a p99.9 below the median, a zero lease — as problems, all of them.
 */
export function buildScenario(
  data: Raw,
  file: string,
): { scenario: Scenario; problems: PathProblem[] } {
  const read = new ScenarioReader();
  const lease = data.lease as Raw;
  const jobs = data.jobs as Raw;
  const handler = jobs.handler as Raw;
  const checkOptions = (data.checkOptions ?? {}) as Raw;
  const workers = data.workers as number;
  const positive = { positive: true };
  const durationMs = read.ms(lease.duration, ['lease', 'duration'], positive);
  const scenario: Scenario = {
    file,
    name: data.name as string,
    description: (data.description as string | undefined) ?? '',
    seed: (data.seed as number | undefined) ?? SCENARIO_DEFAULTS.seed,
    lease: {
      durationMs,
      heartbeatMs: read.ms(lease.heartbeat, ['lease', 'heartbeat'], positive),
      extendByMs:
        lease.extendBy === undefined
          ? durationMs
          : read.ms(lease.extendBy, ['lease', 'extendBy'], positive),
      pollMs:
        lease.poll === undefined
          ? SCENARIO_DEFAULTS.pollMs
          : read.ms(lease.poll, ['lease', 'poll']),
    },
    workers,
    jobs: {
      count: jobs.count as number,
      ...(jobs.rate !== undefined && { ratePerSecond: jobs.rate as number }),
      ...(jobs.maxAttempts !== undefined && { maxAttempts: jobs.maxAttempts as number }),
      handler: {
        units: handler.units as number,
        unit: distribution(handler.unit as Raw, ['jobs', 'handler', 'unit'], read),
        effectEvery: (handler.effectEvery as number | undefined) ?? 1,
        sync: (handler.sync as boolean | undefined) ?? false,
        checkpoint: (handler.checkpoint as boolean | undefined) ?? false,
        ignoresAbort: (handler.ignoresAbort as boolean | undefined) ?? false,
        failAttempts: (handler.failAttempts as number | undefined) ?? 0,
      },
    },
    faults: ((data.faults ?? []) as Raw[]).map((item, i) =>
      buildFaultSpec(item, ['faults', i], workers, read),
    ),
    check: [...(data.check as string[])],
    checkOptions: {
      ...(checkOptions.epsilon !== undefined && {
        epsilonMs: read.ms(checkOptions.epsilon, ['checkOptions', 'epsilon']),
      }),
      ...(checkOptions.fenced !== undefined && {
        staleAck: checkOptions.fenced ? 'fenced' : 'strict',
      }),
      ...(checkOptions.strictCauses !== undefined && {
        strictCauses: checkOptions.strictCauses as boolean,
      }),
    },
    drainTimeoutMs:
      data.drainTimeout === undefined
        ? SCENARIO_DEFAULTS.drainTimeoutMs
        : read.ms(data.drainTimeout, ['drainTimeout'], positive),
    allowDeadLetter: (data.allowDeadLetter as boolean | undefined) ?? false,
    settings: (data.settings as Record<string, StatedSettings> | undefined) ?? {},
  };
  return { scenario, problems: read.problems };
}

function distribution(raw: Raw, path: DocumentPath, read: ScenarioReader): DurationDistribution {
  const ms = (key: string): number => read.ms(raw[key], [...path, key]);
  switch (raw.dist) {
    case 'fixed':
      return { dist: 'fixed', ms: ms('duration') };
    case 'uniform': {
      const minMs = ms('min');
      const maxMs = ms('max');
      if (maxMs < minMs) {
        read.problem(
          [...path, 'max'],
          `${String(raw.max)}, below min ${String(raw.min)}`,
          'max >= min',
        );
      }
      return { dist: 'uniform', minMs, maxMs };
    }
    case 'lognormal': {
      const p50Ms = read.ms(raw.p50, [...path, 'p50'], { positive: true });
      const p999Ms = ms('p999');
      if (p999Ms < p50Ms) {
        read.problem(
          [...path, 'p999'],
          `${String(raw.p999)}, below p50 ${String(raw.p50)}`,
          'p999 >= p50 (the 99.9th percentile is at least the median)',
        );
      }
      return { dist: 'lognormal', p50Ms, p999Ms };
    }
    default:
      return {
        dist: 'empirical',
        samplesMs: (raw.samples as unknown[]).map((s, i) => read.ms(s, [...path, 'samples', i])),
      };
  }
}
