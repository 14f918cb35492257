import { Command } from 'commander';
import type { MergeFlags } from './merge-action.js';

/** `leaseproof merge <dir…>`: the shards of a run, one report and one exit code. */
export function mergeCommand(): Command {
  return new Command('merge')
    .description(
      'merge the run folders of `suite --shard i/n` shards (or folders holding them) into one ' +
        'report and index; exit 0 valid, 1 invalid, 2 unknown, a missing shard or an error ' +
        "(runs given --expect: 0 when the merged run meets them, 1 when not, as `run`'s)",
    )
    .argument('<dirs...>', 'run folders, or folders to search for them')
    .option('--out <dir>', 'reports folder the merged run is written into', 'reports/merged')
    .option('--json', 'print the merged verdict as JSON on stdout')
    .action(async (dirs: string[], flags: MergeFlags) =>
      (await import('./merge-action.js')).merge(dirs, flags),
    );
}
