import { Command, Option } from 'commander';
import type { ReplayFlags } from './replay-action.js';

/** `leaseproof replay`: an incident file, replayed and told job by job in its own clock. */
export function replayCommand(): Command {
  return new Command('replay')
    .description(
      "replay an incident file (a postmortem's timeline in its own clock, compressed by its " +
        'timeScale) against real workers, and tell what happened to each job it touched, in the ' +
        "incident's clock; exit 0 valid, 1 invalid, 2 unknown or error",
    )
    .argument('<incident>', 'incident file (YAML, see scenarios/incident.schema.json)')
    .option('--queue <name|path>', 'queue under test', 'reference')
    .option('--out <dir>', 'reports folder', 'reports')
    .option('--all', 'tell every job, not only those a fault touched')
    .option(
      '--sweep <lease=from..to>',
      'what-if: replay at several leases (lease=20s..60s, lease=20s..60s:3, lease=20s,30s)',
    )
    .addOption(
      new Option('--env <provider>', 'embedded | external | containers').env('LEASEPROOF_ENV'),
    )
    .action(async (file: string, flags: ReplayFlags) =>
      (await import('./replay-action.js')).replay(file, flags),
    );
}
