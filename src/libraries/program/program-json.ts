import { runTool, ToolFailedError } from '../../env/run-tool.js';
import { AdapterError } from '../../queue/adapter-error.js';

/**
 * Runs `command` to its end and returns its stdout parsed as JSON: how the controller asks a
 * library in another language for the statements it installs and enqueues with. A failure is
 * an `AdapterError` that says `label` and quotes the program's stderr.
 */
export async function programJson<T>(
  label: string,
  command: readonly string[],
  env: Record<string, string> = {},
): Promise<T> {
  const [file, ...args] = command;
  if (file === undefined) throw new AdapterError(`${label}: no command`);
  let stdout: string;
  try {
    stdout = await runTool(file, args, { env, tailLines: 8 });
  } catch (error) {
    if (!(error instanceof ToolFailedError)) throw error;
    throw new AdapterError(
      `${label} failed (exit ${String(error.exitCode)}):\n${error.stderrTail}`,
    );
  }
  try {
    return JSON.parse(stdout) as T;
  } catch (error) {
    throw new AdapterError(`${label} did not print JSON: ${String(error)}`);
  }
}

/**
 * `ask()`, asked once per process and kept; a failure is not kept (the next call asks again).
 */
export function askedOnce<T>(ask: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => {
    answer ??= ask().catch((error: unknown) => {
      answer = undefined;
      throw error;
    });
    return answer;
  };
}
