/**
 * The `leaseproof` command: thin. It parses arguments (commander), calls the library, and maps
 * results to exit codes: 0 valid/ok, 1 invalid/failed check, 2 harness error or bad input.
 */
import { replayCommand } from './replay-command.js';
import { tuneCommand } from './tune-command.js';
import { Command, CommanderError } from 'commander';
import { envCommand } from './env-command.js';
import { checkCommand } from './check-command.js';
import { exploreCommand } from './explore-command.js';
import { mutantsCommand } from './mutants-command.js';
import { mergeCommand } from './merge-command.js';
import { runCommand, suiteCommand } from './run-command.js';
import { listCommand } from './list-command.js';
import { reapLeftovers } from '../env/process-registry.js';
import { LeaseproofError, describeError } from '../errors.js';
import { VERSION } from '../version.js';
import { commanderExitCode, reportUsageErrors } from './usage-errors.js';

/** Builds the program; exported so tests can drive it without a child process. */
export function buildProgram(): Command {
  const program = new Command('leaseproof')
    .description('prove or disprove the lease safety of database-backed job queues')
    .version(VERSION)
    .hook('preAction', async () => {
      // A leaseproof that was SIGKILLed could not stop its servers or continue its paused
      // workers; the next command does it, whatever that command is.
      for (const { record, outcome } of await reapLeftovers()) {
        if (outcome === 'stopped') {
          process.stderr.write(
            `leaseproof: stopped leftover ${record.kind} (pid ${record.pid}) of killed run ${record.runId}\n`,
          );
        }
      }
    });
  program.addCommand(envCommand());
  program.addCommand(checkCommand());
  program.addCommand(runCommand());
  program.addCommand(suiteCommand());
  program.addCommand(listCommand());
  program.addCommand(exploreCommand());
  program.addCommand(mutantsCommand());
  program.addCommand(tuneCommand());
  program.addCommand(replayCommand());
  program.addCommand(mergeCommand());
  reportUsageErrors(program);
  return program;
}

/** Runs the CLI with `argv`; never throws, sets the exit code. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    // Help, --version, or a command without its subcommand: commander has said what it had to.
    if (error instanceof CommanderError) {
      process.exitCode = commanderExitCode(error);
      return;
    }
    process.stderr.write(`leaseproof: ${describeError(error)}\n`);
    if (!(error instanceof LeaseproofError) || process.env.LEASEPROOF_DEBUG) {
      if (error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    }
    process.exitCode = 2;
  }
}
