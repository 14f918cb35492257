/**
 * `--epsilon`, one flag for every command that judges: `check` re-judges a history, `run` and
 * `suite` judge what they run. One parser, so `--epsilon 20ms` works wherever `--epsilon 20`
 * does, and a typo gets the same message everywhere.
 */
import { Option } from 'commander';
import { ConfigError } from '../errors.js';
import { parseDuration } from '../duration.js';

/** What `--epsilon` takes, for help texts and messages. */
export const EPSILON_FORMS = 'a number of ms (20, 0.5) or a duration (20ms, 1s, 250us)';

/**
 * The `--epsilon <ms|duration>` option; `what` finishes the help line (what ε applies to). Its
 * value is a string: read it with `parseEpsilon` in the action, since a commander argument
 * parser that throws exits 1, which `check` and `run` use for "invalid".
 */
export function epsilonOption(what: string): Option {
  return new Option('--epsilon <ms|duration>', `tolerance ε, ${EPSILON_FORMS}; ${what}`);
}

/**
 * ε from the command line in milliseconds: a bare number is milliseconds, anything else a
 * duration as scenario files write them (`checkOptions.epsilon`). Throws a `ConfigError` naming
 * the flag, the forms it takes and what it got.
 */
export function parseEpsilon(text: string): number {
  // Number() alone would take "", "0x10" and "1e3" too; only plain decimals are milliseconds.
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) : durationOrNaN(text);
  if (!(Number.isFinite(ms) && ms >= 0)) {
    throw new ConfigError(
      `--epsilon takes milliseconds or a duration: ${EPSILON_FORMS}; got "${text}"`,
    );
  }
  return ms;
}

function durationOrNaN(text: string): number {
  try {
    return parseDuration(text);
  } catch {
    return Number.NaN;
  }
}
