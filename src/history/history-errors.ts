import { LeaseproofError } from '../errors.js';

/**
 * An adapter's audit description cannot be turned into a trigger: its table does not exist, or
 * one of its SQL expressions does not evaluate over the table's row.
 */
export class AuditDescriptionError extends LeaseproofError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('LEASEPROOF_BAD_AUDIT_DESCRIPTION', message, options);
  }
}

/**
 * What the audit trigger recorded cannot be read as history: a state outside `LeaseState`, a
 * row without a job id, or no audit table at all (the trigger was never installed).
 */
export class AuditDataError extends LeaseproofError {
  constructor(message: string) {
    super('LEASEPROOF_BAD_AUDIT_DATA', message);
  }
}

/** A history file that cannot be read; the message starts with `file:line`. */
export class HistoryFileError extends LeaseproofError {
  constructor(
    /** The file. */
    readonly file: string,
    /** The 1-based line, or 0 when the problem is the whole file (it cannot be opened). */
    readonly line: number,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super('LEASEPROOF_BAD_HISTORY', `${line > 0 ? `${file}:${line}` : file}: ${problem}`, options);
  }
}
