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
    .action(async (dir: string | undefined) => (await import('./list-action.js')).list(dir));
}
