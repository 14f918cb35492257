import { Command } from 'commander';

/** `leaseproof list [dir]`. */
export function listCommand(): Command {
  return new Command('list')
    .description(
      'describe the built-in queues, the scenarios, the faults and the checkers, one line each',
    )
    .argument(
      '[dir]',
      'scenario folder (default: ./scenarios, else the scenarios shipped with leaseproof)',
    )
    .option(
      '--queue <name>',
      "describe one queue instead: a library's own settings by its own names, their defaults, the one the scenario's lease stands for, and their values at a 1 s lease",
    )
    .action(async (dir: string | undefined, flags: { queue?: string }) => {
      const actions = await import('./list-action.js');
      await (flags.queue === undefined ? actions.list(dir) : actions.listQueue(flags.queue));
    });
}
