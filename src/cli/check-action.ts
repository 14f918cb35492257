/** What `leaseproof check` does, loaded only when it runs (check-command.ts defines the verb). */
import { checkHistory } from '../checker/index.js';
import { formatVerdictTable } from '../checker/verdict-table.js';
import type { CompositeVerdict } from '../checker/types.js';
import { LeaseproofError } from '../errors.js';
import type { History } from '../history/types.js';
import { readHistory } from '../history/jsonl.js';
import { parseEpsilon } from './epsilon-option.js';

const EXIT_CODES: Record<CompositeVerdict, number> = { valid: 0, invalid: 1, unknown: 2 };

/** The flags of `check`, as commander parses them. */
export interface CheckFlags {
  epsilon?: string;
  fenced?: boolean;
  strictCauses?: boolean;
  json?: boolean;
}

/** Re-judges the history in `file`, prints the verdict, and sets the exit code by it. */
export async function check(file: string, flags: CheckFlags): Promise<void> {
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
