/**
 * The recommended settings as a scenario file for the suite: time compressed so that the lease
 * is at most two seconds, the handler's distribution scaled with it, the production values in
 * the file's description.
 */
import { formatDuration } from '../duration.js';
import type { SimPoint } from '../sim/sim-types.js';
import type { TuneSpec } from './load-tune.js';

/** YAML of a scenario that runs `point` of `spec` against a pause past the lease. */
export function recommendedScenarioYaml(spec: TuneSpec, point: SimPoint): string {
  const scale = Math.min(1, 2_000 / point.leaseMs);
  const ms = (value: number): string => formatDuration(Math.max(1, Math.round(value * scale)));
  const heartbeat = point.heartbeatMs ?? point.leaseMs;
  const lines = [
    `# Written by leaseproof tune from ${spec.name}: the recommended point, time compressed`,
    `# ×${Math.round(scale * 10_000) / 10_000}. In production: lease ${formatDuration(point.leaseMs)}, heartbeat ` +
      `${point.heartbeatMs === null ? 'none' : formatDuration(point.heartbeatMs)}, extend by ` +
      `${formatDuration(point.extendByMs)}, poll ${formatDuration(point.pollMs)}.`,
    `name: ${JSON.stringify(`${spec.name}-recommended`)}`,
    `description: ${JSON.stringify(`The lease recommended by leaseproof tune for ${spec.name}, under a pause past the lease and a crash.`)}`,
    `seed: ${spec.seed}`,
    `lease: { duration: ${ms(point.leaseMs)}, heartbeat: ${ms(heartbeat)}, extendBy: ${ms(point.extendByMs)}, poll: ${ms(Math.max(point.pollMs, 20 / scale))} }`,
    `workers: ${Math.min(spec.workload.workers, 4)}`,
    'jobs:',
    '  count: 20',
    `  handler: { units: ${spec.handler.units}, unit: { dist: lognormal, p50: ${ms(spec.handler.p50Ms / spec.handler.units)}, p999: ${ms(spec.handler.p999Ms / spec.handler.units)} }, effectEvery: 1 }`,
    'faults:',
    `  - { at: 300ms, pause: { worker: 2, for: ${ms(point.leaseMs * 2)} } }`,
    `  - { at: 600ms, crash: { worker: 1, restartAfter: ${ms(point.leaseMs)} } }`,
    'check: [no-stale-ack, single-completion, no-lost-job, exclusive-claim, at-least-once-bound, lease-honored, bounded-zombie, timely-recovery, explained-expiry]',
    '',
  ];
  return lines.join('\n');
}
