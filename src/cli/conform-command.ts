import { Command } from 'commander';
import type { ConformFlags } from './conform-action.js';

/** `leaseproof conform --queue <q>`: the primitives contract, one call at a time. */
export function conformCommand(): Command {
  return new Command('conform')
    .description(
      "check a queue's primitives against the contract, one call at a time on a fresh " +
        'database with no faults (claim, exclusivity, extend, ack, fail and retry, expiry, ' +
        'stale calls refused); exit 0 every check passed, 1 one failed, 2 error',
    )
    .requiredOption(
      '--queue <name|path>',
      'queue to check (an adapter file, a programQueue or pythonQueue one included); repeatable',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--worker',
      "check the worker protocol instead: the queue's worker (leaseproof's, or a native " +
        "program's) starts, says ready, reports its clock, claims after go with its units and " +
        'effect, reports a stall, is stopped by SIGSTOP and ends on SIGTERM',
    )
    .option('--env <provider>', 'embedded | external | containers (env: LEASEPROOF_ENV)')
    .option('--json', 'print the reports as JSON')
    .action(async (flags: ConformFlags) => (await import('./conform-action.js')).conform(flags));
}
