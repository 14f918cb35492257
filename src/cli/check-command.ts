import { Command } from 'commander';
import { epsilonOption } from './epsilon-option.js';
import type { CheckFlags } from './check-action.js';

/** `leaseproof check <history.jsonl[.gz]>`: re-runs the checkers on a recorded history. */
export function checkCommand(): Command {
  return new Command('check')
    .description(
      're-run the lease checkers on a recorded history (exit 0 valid, 1 invalid, 2 unknown)',
    )
    .argument('<history>', 'a history file (JSONL, plain or gzip, as a run records it)')
    .addOption(epsilonOption('default 5ms'))
    .option('--fenced', 'stale acks are acks of replaced claims (default: of expired claims)')
    .option('--strict-causes', 'an expiry with no fault on its holder is invalid, not a warning')
    .option('--json', 'print the verdict as one JSON object')
    .action(async (file: string, flags: CheckFlags) =>
      (await import('./check-action.js')).check(file, flags),
    );
}
