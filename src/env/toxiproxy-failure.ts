import { EnvironmentError } from '../errors.js';

/**
 * An error of the Toxiproxy API (an axios error from toxiproxy-node-client: "Request failed
 * with status code 409") as a sentence that says what the harness was doing, which proxy, and
 * what Toxiproxy answered — never a bare HTTP status.
 */
export function toxiproxyFailure(what: string, error: unknown): EnvironmentError {
  const response = (error as { response?: { status?: unknown; data?: unknown } } | null)?.response;
  const status = typeof response?.status === 'number' ? response.status : undefined;
  const data = response?.data;
  const said =
    typeof data === 'object' && data !== null && 'error' in data
      ? String(data.error)
      : typeof data === 'string' && data.length > 0 && data.length < 300
        ? data.trim()
        : undefined;
  const answer =
    status === undefined
      ? ''
      : `: Toxiproxy answered HTTP ${status}${said === undefined ? '' : ` "${said}"`}`;
  return new EnvironmentError(`could not ${what}${answer}`, { cause: error });
}

/** Whether `error` is Toxiproxy's answer with HTTP `status`. */
export function isToxiproxyStatus(error: unknown, status: number): boolean {
  const response = (error as { response?: { status?: unknown } } | null)?.response;
  return response?.status === status || String(error).includes(`status code ${status}`);
}

/**
 * Whether `error` is a failure to reach Toxiproxy's API at all — no HTTP answer (`fetch failed`:
 * a connection reset or refused while a loaded machine kept the server from accepting) — as
 * opposed to an answer. Such a request may be tried again; an answer is final.
 */
export function isToxiproxyUnreachable(error: unknown): boolean {
  const response = (error as { response?: unknown } | null)?.response;
  if (response !== undefined) return false;
  return error instanceof TypeError && /fetch failed/.test(error.message);
}

/** The innermost cause's message and code, for an error line ("ECONNRESET: socket hang up"). */
export function rootCause(error: unknown): string {
  let e: unknown = error;
  while (e instanceof Error && e.cause !== undefined) e = e.cause;
  if (!(e instanceof Error)) return String(e);
  const code = (e as NodeJS.ErrnoException).code;
  return code === undefined ? e.message : `${code}: ${e.message}`;
}
