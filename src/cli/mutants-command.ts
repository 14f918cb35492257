import { Command, Option } from 'commander';
import { parallelOption } from './parallel-option.js';
import type { MutantsFlags } from './mutants-action.js';

/** `leaseproof mutants`: the curated suite against every known-bad variant; exit 0 only at 100 %. */
export function mutantsCommand(): Command {
  return new Command('mutants')
    .description(
      'run the suite against the base queue and each known-bad variant; print the kill matrix and ' +
        'the mutation score; exit 0 when the base is clean and every variant is caught by the ' +
        'invariant that names its bug, 1 otherwise',
    )
    .option('--queue <name|path>', 'the correct queue the variants are variants of', 'reference')
    .option(
      '--scenarios <dir>',
      'folder of scenario YAML files (default: ./scenarios, else the curated suite shipped with leaseproof)',
    )
    .option(
      '--variant <name>',
      'only this variant; repeatable (default: all)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '--control <name|path>',
      'another correct queue that must stay valid on every scenario; repeatable (default: ' +
        'reap-on-poll with --queue reference, else none)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--min-kills <n>', 'scenarios that must catch each variant', '1')
    .option(
      '--full',
      'run every scenario against every variant for real (default: the simulation runs them ' +
        'all on PGlite first, and only the base everywhere and each variant where it was killed ' +
        'there run for real; a variant it cannot kill is searched for on real runs)',
    )
    .option('--out <dir>', 'reports folder', 'reports')
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .option('--i-own-this-database', "run inside DATABASE_URL's own database (never dropped)")
    .option('--json', 'print the matrix as JSON on stdout')
    .addOption(parallelOption('scenario runs'))
    .action(async (flags: MutantsFlags) => (await import('./mutants-action.js')).mutants(flags));
}
