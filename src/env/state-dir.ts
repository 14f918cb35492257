import { resolve } from 'node:path';

/**
 * The folder where leaseproof keeps what must outlive one process: records of the servers and
 * workers it started (so a command after a SIGKILLed one can stop them) and the state of
 * `leaseproof env up`. `LEASEPROOF_STATE_DIR` overrides `./.leaseproof`.
 */
export function stateDir(): string {
  const override = process.env.LEASEPROOF_STATE_DIR;
  return resolve(override !== undefined && override !== '' ? override : '.leaseproof');
}
