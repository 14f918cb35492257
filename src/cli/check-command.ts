import { Command } from 'commander';
import { checkHistory } from '../checker/index.js';
import { formatVerdictTable } from '../checker/verdict-table.js';
import type { Verdict } from '../checker/types.js';
import { LeaseproofError } from '../errors.js';
import type { History } from '../history/types.js';
import { readHistory } from '../history/jsonl.js';
import { epsilonOption, parseEpsilon } from './epsilon-option.js';

const EXIT_CODES: Record<Verdict, number> = { valid: 0, invalid: 1, unknown: 2 };

interface CheckFlags {
  epsilon?: string;
  fenced?: boolean;
  strictCauses?: boolean;
  json?: boolean;
}

/** `leaseproof check <history.jsonl[.gz]>`: re-runs the checkers on a recorded history. */
export function checkCommand(): Command {
  return new Command('check')
    .description(
      're-run the lease checkers on a recorded history (exit 0 valid, 1 invalid, 2 unknown)',
    )
    .argument('<history>', 'a history file (JSONL, plain or gzip, as a run records it)')
    .addOption(epsilonOption('default 5ms'))
    .option('--fenced', 'stale acks are acks of replaced claims (default: of expired claims)')
    .option('--strict-causes', 'an expiry with no fault on its holder is invalid, not a warning')
    .option('--json', 'print the verdict as one JSON object')
    .action(async (file: string, flags: CheckFlags) => {
      // Checked here, not by a commander parser: commander exits 1 on a bad argument, and 1
      // means "invalid history" to whoever reads this exit code.
      const epsilonMs = flags.epsilon === undefined ? undefined : parseEpsilon(flags.epsilon);
      const history = await read(file);
      const result = checkHistory(history, {
        ...(epsilonMs !== undefined && { epsilonMs }),
        staleAck: flags.fenced === true ? 'fenced' : 'strict',
        strictCauses: flags.strictCauses === true,
      });
      if (flags.json === true) console.log(JSON.stringify(result));
      else console.log(formatVerdictTable(result));
      process.exitCode = EXIT_CODES[result.valid];
    });
}

/**
 * Reads the history for one verdict. A reader error already names the file, the line and the
 * problem; its `cause` (the system error it quotes) would only print the same line twice.
 */
async function read(file: string): Promise<History> {
  try {
    return await readHistory(file);
  } catch (error) {
    if (error instanceof LeaseproofError) throw new LeaseproofError(error.code, error.message);
    throw error;
  }
}
