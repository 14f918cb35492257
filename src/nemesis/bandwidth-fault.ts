import { ToxicFault, type ToxicDirection } from './toxic-fault.js';

/**
 * Throttles a worker's path to the database to `rateKBps` kilobytes per second (Toxiproxy's
 * `bandwidth` toxic): small statements barely notice, large results crawl — a saturated link.
 */
export class BandwidthFault extends ToxicFault {
  constructor(worker: string, rateKBps: number, direction: ToxicDirection = 'downstream') {
    super('bandwidth', worker, 'bandwidth', { rate: rateKBps }, direction, { rateKBps });
  }
}
