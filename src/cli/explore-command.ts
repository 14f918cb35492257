import { Command, Option } from 'commander';
import { parallelOption } from './parallel-option.js';
import type { ExploreFlags } from './explore-action.js';

/** `leaseproof explore`: property-based search for a fault schedule that breaks a queue. */
export function exploreCommand(): Command {
  return new Command('explore')
    .description(
      'generate fault schedules with fast-check, run each for real, and shrink a failure to a ' +
        'replayable scenario file; exit 0 none found (failures that reproduced on no replay are ' +
        'listed, not counted), 1 counterexample found, 2 error',
    )
    .option('--queue <name|path>', 'queue under test', 'reference')
    .option('--runs <n>', 'scenarios to try', '50')
    .option('--seed <n>', 'fast-check seed (default: drawn and printed)')
    .option('--budget <duration>', 'wall-time budget for search and shrinking', '5m')
    .option('--out <dir>', 'where counterexamples are written', 'reports/counterexamples')
    .option(
      '--sim',
      "search in simulated time against the queue's own SQL on PGlite (crash, pause, " +
        'partition, latency and clock faults), and confirm each failure on real runs before ' +
        'reporting it',
    )
    .addOption(parallelOption('searches, each from its own seed in its own databases,'))
    .option(
      '--shard <i/n>',
      "this machine's part of a search split over n (give every shard the same --seed)",
    )
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .action(async (flags: ExploreFlags) => (await import('./explore-action.js')).runExplore(flags));
}
