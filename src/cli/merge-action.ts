/** What `leaseproof merge` does, loaded only when it runs (merge-command.ts defines the verb). */
import { relative } from 'node:path';
import { mergeRuns } from '../report/merge-runs.js';
import { expectationsExitCode, expectationsLine } from '../report/expectations.js';
import { formatOutcomeTable, verdictRow } from './outcome-table.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/** The flags of `merge`, as commander parses them. */
export interface MergeFlags {
  out: string;
  json?: boolean;
}

/** Merges the shards' run folders into one run, prints its verdict, sets the exit code by it. */
export async function merge(dirs: string[], flags: MergeFlags): Promise<void> {
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
}
