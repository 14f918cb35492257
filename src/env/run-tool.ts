import { spawn } from 'node:child_process';
import { EnvironmentError } from '../errors.js';

/** A tool that ran and failed: its exit code and the tail of its stderr. */
export class ToolFailedError extends EnvironmentError {
  constructor(
    message: string,
    /** The last lines of what it wrote to stderr. */
    readonly stderrTail: string,
    /** Its exit code (null when a signal ended it). */
    readonly exitCode: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Runs an install-time tool (`go`, `python -m pip`, …) to its end and returns its stdout. A
 * tool that exits non-zero is a `ToolFailedError` naming the command, where it ran and the last
 * `tailLines` lines of its stderr; one that cannot be started rejects with the spawn error
 * (`ENOENT`), for the caller to say what to install.
 */
export async function runTool(
  file: string,
  args: readonly string[],
  options: { cwd?: string; tailLines?: number; env?: Record<string, string> } = {},
): Promise<string> {
  const { cwd, tailLines = 12, env } = options;
  return new Promise<string>((done, reject) => {
    const child = spawn(file, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(env !== undefined && { env: { ...process.env, ...env } }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return done(Buffer.concat(out).toString());
      const tail = Buffer.concat(err).toString().trim().split('\n').slice(-tailLines).join('\n');
      const where = cwd === undefined ? '' : ` in ${cwd}`;
      reject(
        new ToolFailedError(
          `${file} ${args.join(' ')} failed${where} (exit ${String(code)}):\n${tail}`,
          tail,
          code,
        ),
      );
    });
  });
}
