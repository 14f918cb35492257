import { CommanderError, type Command } from 'commander';
import { UsageError } from '../errors.js';

/**
 * Makes every command of `program` report a usage error — an unknown option or command, a
 * missing argument or option value — as one `UsageError` line instead of commander's own
 * output and exit 1: 1 means "invalid" to whoever reads leaseproof's exit code, and a usage
 * error judged nothing. Help and `--version` still end the parse as `CommanderError`s (exit 0),
 * and so does a command called without its subcommand (its help, on stderr).
 *
 * Each command needs it: `addCommand` does not pass settings down as `.command()` does.
 */
export function reportUsageErrors(program: Command): void {
  for (const command of [program, ...descendants(program)]) {
    command
      .configureOutput({ outputError: () => undefined })
      .exitOverride((error: CommanderError) => {
        if (error.exitCode === 0 || error.code === 'commander.help') throw error;
        throw new UsageError(usageLine(error, command));
      });
  }
}

/** The exit code of a parse that commander ended: 0 for help and version, else 2. */
export function commanderExitCode(error: CommanderError): number {
  return error.exitCode === 0 ? 0 : 2;
}

function descendants(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...descendants(c)]);
}

/**
 * `unknown option '--quue'; did you mean --queue?`, or, with nothing to suggest,
 * `missing required argument 'files' (see leaseproof run --help)`.
 */
function usageLine(error: CommanderError, command: Command): string {
  const [what = error.message, ...rest] = error.message.replace(/^error: /, '').split('\n');
  const suggestion = /^\(Did you mean (.+)\?\)$/.exec(rest.join(' ').trim())?.[1];
  if (suggestion !== undefined) return `${what}; did you mean ${suggestion}?`;
  return `${what.replace(/\.$/, '')} (see ${commandPath(command)} --help)`;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
