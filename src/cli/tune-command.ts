import { Command, Option } from 'commander';
import type { TuneFlags } from './tune-action.js';

/** `leaseproof tune`: sweep lease, heartbeat and extension on the simulation; confirm on real runs. */
export function tuneCommand(): Command {
  return new Command('tune')
    .description(
      'sweep lease, heartbeat and extension against a handler-duration distribution on a fast ' +
        'simulation of the real worker loop, recommend settings within your budgets, and confirm ' +
        'the best points on real runs; exit 0 a point meets the budgets (and every confirmation ' +
        "agrees, and it holds on --queue's own SQL), 1 none does (or one disagrees, or it does " +
        'not hold), 2 error (or --queue could not be simulated)',
    )
    .argument('<file>', 'tune file (YAML, see scenarios/tune.schema.json)')
    .option('--confirm <k>', 'rerun the k best points (and one outside the budget) for real', '0')
    .option(
      '--queue <name|file>',
      "simulate the best points again on this queue's own SQL (PGlite, simulated time), judged " +
        'by the budgets and the checkers',
    )
    .option(
      '--queue-points <k>',
      'best points to simulate on --queue (and one outside the budget)',
      '3',
    )
    .option('--queue-jobs <n>', "jobs per point on --queue (default: the tune file's)")
    .option(
      '--out <dir>',
      'where tune.json, tune.html and its assets/echarts.min.js go',
      'reports/tune',
    )
    .option('--write-scenario <file>', 'write the recommended settings as a scenario file')
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers (for --confirm)').env(
        'LEASEPROOF_ENV',
      ),
    )
    .action(async (file: string, flags: TuneFlags) =>
      (await import('./tune-action.js')).tune(file, flags),
    );
}
