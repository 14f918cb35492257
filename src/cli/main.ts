/**
 * The `leaseproof` command: thin. It parses arguments (commander), calls the library, and maps
 * results to exit codes: 0 valid/ok, 1 invalid/failed check, 2 harness error or bad input.
 *
 * Every verb is defined up front — its arguments, options and help, in `run-command.ts` and the
 * like — but does its work in a module of its own (`run-action.ts`) that its action imports when
 * it runs. That work is most of leaseproof's code (the suite runner, the checkers, the report
 * writers); loaded for every command, it made `--version` take 0.77 s where Node alone starts
 * in 0.08 s.
 */
import { Command, CommanderError } from 'commander';
import { replayCommand } from './replay-command.js';
import { tuneCommand } from './tune-command.js';
import { envCommand } from './env-command.js';
import { checkCommand } from './check-command.js';
import { exploreCommand } from './explore-command.js';
import { mutantsCommand } from './mutants-command.js';
import { mergeCommand } from './merge-command.js';
import { conformCommand } from './conform-command.js';
import { simulateCommand } from './simulate-command.js';
import { runCommand, suiteCommand } from './run-command.js';
import { listCommand } from './list-command.js';
import { LeaseproofError, describeError } from '../errors.js';
import { VERSION } from '../version.js';
import { commanderExitCode, reportUsageErrors } from './usage-errors.js';

/** Options of `buildProgram` and `main`. */
export interface ProgramOptions {
  /**
   * Runs once a command line has parsed and a verb's action is about to run — never for help,
   * `--version` or a usage error. The process entry registers tsx's hooks here, which only a
   * verb that may load a user's TypeScript adapter needs.
   */
  beforeAction?: () => Promise<void>;
}

/** Builds the program; exported so tests can drive it without a child process. */
export function buildProgram(options: ProgramOptions = {}): Command {
  const program = new Command('leaseproof')
    .description('prove or disprove the lease safety of database-backed job queues')
    .version(VERSION)
    .hook('preAction', async () => {
      await options.beforeAction?.();
      // A leaseproof that was SIGKILLed could not stop its servers or continue its paused
      // workers; the next command does it, whatever that command is.
      const { reapLeftovers } = await import('../env/process-registry.js');
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
  program.addCommand(conformCommand());
  program.addCommand(simulateCommand());
  reportUsageErrors(program);
  return program;
}

/** Runs the CLI with `argv`; never throws, sets the exit code. */
export async function main(
  argv: string[] = process.argv,
  options: ProgramOptions = {},
): Promise<void> {
  try {
    await buildProgram(options).parseAsync(argv);
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
