// How the controller asks a worker program for JSON (a library's statements): its stdout parsed,
// its environment added to leaseproof's, and each way it can fail said as an AdapterError.
import { describe, expect, it } from 'vitest';
import { programJson } from '../../src/libraries/program/program-json.js';
import { AdapterError } from '../../src/queue/adapter-error.js';

describe('programJson', () => {
  it("parses the program's stdout, with its environment added", async () => {
    await expect(
      programJson('probe', ['sh', '-c', 'printf \'{"x":"%s"}\' "$PROBE_X"'], { PROBE_X: 'given' }),
    ).resolves.toEqual({ x: 'given' });
  });

  it('names the program, its exit code and the tail of its stderr when it fails', async () => {
    const error = await programJson('probe', [
      'sh',
      '-c',
      'echo one >&2; echo boom >&2; exit 3',
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdapterError);
    expect((error as Error).message).toBe('probe failed (exit 3):\none\nboom');
  });

  it('says so when it prints something other than JSON', async () => {
    await expect(programJson('probe', ['sh', '-c', 'echo not json'])).rejects.toThrow(
      /^probe did not print JSON: /,
    );
  });

  it('rejects with the spawn error when the program does not exist, and refuses no command', async () => {
    await expect(programJson('probe', ['/no/such/program'])).rejects.toMatchObject({
      code: 'ENOENT',
    });
    await expect(programJson('probe', [])).rejects.toThrow('probe: no command');
  });
});
