import { Command, Option } from 'commander';
import type { TuneFlags } from './tune-action.js';

/** `leaseproof tune`: sweep lease, heartbeat and extension on the simulation; confirm on real runs. */
export function tuneCommand(): Command {
  return new Command('tune')
    .description(
      'sweep lease, heartbeat and extension against a handler-duration distribution on a fast ' +
        'simulation of the real worker loop, recommend settings within your budgets, and confirm ' +
        'the best points on real runs; exit 0 a point meets the budgets (and every confirmation ' +
        'agrees), 1 none does (or one disagrees), 2 error',
    )
    .argument('<file>', 'tune file (YAML, see scenarios/tune.schema.json)')
    .option('--confirm <k>', 'rerun the k best points (and one outside the budget) for real', '0')
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
