import { Command } from 'commander';
import type { SimulateFlags } from './simulate-action.js';

/** `leaseproof simulate <files…>`. */
export function simulateCommand(): Command {
  return new Command('simulate')
    .description(
      "run scenarios in simulated time against the queue's own SQL on PGlite (in-process " +
        'PostgreSQL, leaseproof’s worker loop, faults as scheduling) and judge them; a lead to ' +
        'confirm with `run`, not a verdict. Exit 0 valid, 1 invalid, 2 unknown or not simulated',
    )
    .argument(
      '<files...>',
      'scenario YAML files, or names of scenarios in ./scenarios or shipped with leaseproof',
    )
    .option(
      '--queue <name|path>',
      'queue under test; repeat for several',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--seed <n>', "override every scenario's seed")
    .option(
      '--wall-bound <seconds>',
      'a run that takes longer is cut short and unknown (default 60)',
    )
    .option(
      '--step-bound <steps>',
      'a run that fires more timers, or waits more simulated ms in the database, is cut short and unknown (default 2000000)',
    )
    .action(async (files: string[], flags: SimulateFlags) =>
      (await import('./simulate-action.js')).simulateFiles(files, flags),
    );
}
