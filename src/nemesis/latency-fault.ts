import { ToxicFault, type ToxicDirection } from './toxic-fault.js';

/**
 * Slows a worker's path to the database: every chunk of bytes on the chosen streams is held
 * for `latencyMs` ± `jitterMs` (Toxiproxy's `latency` toxic). On one stream a statement's round
 * trip grows by about the latency; on both, by about twice that. Heartbeats and acks that
 * arrive late enough lose their lease.
 */
export class LatencyFault extends ToxicFault {
  constructor(
    worker: string,
    latencyMs: number,
    jitterMs = 0,
    direction: ToxicDirection = 'downstream',
  ) {
    super(
      'latency',
      worker,
      'latency',
      // Toxiproxy takes whole milliseconds.
      { latency: Math.round(latencyMs), jitter: Math.round(jitterMs) },
      direction,
      { latencyMs, jitterMs },
    );
  }
}
