import { Command } from 'commander';
import { relative } from 'node:path';
import { mergeRuns } from '../report/merge-runs.js';
import { expectationsExitCode, expectationsLine } from '../report/expectations.js';
import { formatOutcomeTable, verdictRow } from './outcome-table.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

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
    .action(async (dirs: string[], flags: { out: string; json?: boolean }) => {
      const merged = await mergeRuns(dirs, flags.out);
      for (const note of merged.notes) say(`merge: ${note}`);
      const shown = (path: string): string => relative(process.cwd(), path) || path;
      say(
        `merged ${merged.verdict.mergedFrom?.length ?? 0} run(s), ` +
          `${merged.verdict.scenarios.length} scenario run(s): ${merged.verdict.verdict}`,
      );
      if (flags.json === true) {
        console.log(
          JSON.stringify({
            runId: merged.verdict.runId,
            dir: merged.dir,
            verdict: merged.verdict.verdict,
            ...(merged.verdict.expectations !== undefined && {
              expectations: merged.verdict.expectations,
            }),
            outcomes: merged.verdict.scenarios.map((s) => ({
              scenario: s.name,
              queue: s.queue,
              verdict: s.verdict,
              checkers: Object.fromEntries(s.checkers.map((c) => [c.checker, c.verdict])),
            })),
          }),
        );
      } else {
        console.log(formatOutcomeTable(merged.verdict.scenarios.map(verdictRow)));
        console.log(`\nreport: ${shown(merged.dir)}`);
        console.log(`index:  ${shown(merged.index)}`);
      }
      const { verdict, expectations, interrupted } = merged.verdict;
      // Shards run with --expect merge as the run would have ended: by its expectations.
      if (expectations !== undefined) {
        say(expectationsLine(expectations));
        process.exitCode = expectationsExitCode(expectations);
        return;
      }
      process.exitCode = verdict === 'invalid' ? 1 : verdict === 'unknown' || interrupted ? 2 : 0;
    });
}
