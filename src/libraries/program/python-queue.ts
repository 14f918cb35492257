import { resolve } from 'node:path';
import { ensurePythonEnvironment, PYTHON_CLIENT_DIR } from '../../env/python-install.js';
import type { QueueAdapter } from '../../queue/types.js';
import { programQueue } from './program-queue.js';

/** Options of `pythonQueue`. */
export interface PythonQueueOptions {
  /** Arguments after the script. */
  args?: readonly string[];
  /** Environment added to leaseproof's own. */
  env?: Readonly<Record<string, string>>;
  /** Project root holding `.tools/python` (default: the current directory). */
  projectRoot?: string;
  /** See `ProgramQueueOptions.clockSkew`. */
  clockSkew?: boolean;
}

/**
 * An adapter factory for a queue written in Python with leaseproof's client
 * (`from leaseproof_client import serve`): the script runs in leaseproof's own virtual
 * environment (`.tools/python`, made on first need with the client's pinned requirements), with
 * the client on its path. `export default pythonQueue('./tiny_queue.py')` in an adapter file.
 */
export function pythonQueue(
  script: string,
  options: PythonQueueOptions = {},
): () => Promise<QueueAdapter> {
  let made: Promise<QueueAdapter> | undefined;
  return () =>
    (made ??= (async () => {
      const python = await ensurePythonEnvironment({
        ...(options.projectRoot !== undefined && { projectRoot: options.projectRoot }),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const path = [PYTHON_CLIENT_DIR, process.env.PYTHONPATH].filter(Boolean).join(':');
      return programQueue({
        command: [python, resolve(script), ...(options.args ?? [])],
        env: { PYTHONPATH: path, PYTHONUNBUFFERED: '1', ...options.env },
        ...(options.clockSkew !== undefined && { clockSkew: options.clockSkew }),
      })();
    })());
}
