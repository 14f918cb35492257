import { spawnSync } from 'node:child_process';
import { findLibfaketime } from '../../src/libraries/program/program-clock.js';

/** Whether `python3` with venv is here (the Python worker tests skip, saying so, when not). */
export const havePython =
  spawnSync(process.env.LEASEPROOF_PYTHON ?? 'python3', ['-c', 'import venv'], {
    stdio: 'ignore',
  }).status === 0;

/** The title suffix of a test that needs Python 3. */
export const pythonSkipReason = havePython
  ? ''
  : ' (skipped: no python3 with venv here; apt-get install python3 python3-venv)';

/** Whether libfaketime is installed (the clock-skew-in-a-program tests need it). */
export const haveLibfaketime = findLibfaketime() !== undefined;

/** The title suffix of a test that needs libfaketime. */
export const libfaketimeSkipReason = haveLibfaketime
  ? ''
  : ' (skipped: libfaketime not installed; apt-get install faketime)';
