import { ensureJavaProgram, javaCommand } from '../../env/java-install.js';
import type { NativeProgram } from '../../queue/types.js';
import { askedOnce, programJson } from './program-json.js';

// A JVM that starts fast and stays small on a shared 2-core machine: the client compiler only,
// the serial collector; db-scheduler's and Hikari's logs at warn (stderr).
const JVM_OPTIONS = [
  '-XX:TieredStopAtLevel=1',
  '-XX:+UseSerialGC',
  '-Xmx256m',
  '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
];

/**
 * A native worker program written in Java with leaseproof's client: the client's jar
 * (`clients/java`, built on first need into `.tools/java`, see `ensureJavaProgram`) run as
 * `java -jar`, so the pid leaseproof signals is the JVM's. Its wall clock is skewed by
 * libfaketime with `FAKETIME_FORCE_MONOTONIC_FIX=0`: libfaketime 0.9.10 turns that fix on by
 * itself under a recent glibc, and then every timed wait of the JVM (`Object.wait`,
 * `LockSupport.parkNanos`, on CLOCK_MONOTONIC condition variables) returns at once — measured
 * here: a 100 ms wait took 0.0 ms with it, 100.1 ms without.
 */
export async function javaNativeProgram(name: string, mainClass?: string): Promise<NativeProgram> {
  const jar = await ensureJavaProgram(name, {
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const launch = mainClass === undefined ? ['-jar', jar] : ['-cp', jar, mainClass];
  return {
    command: [javaCommand(), ...JVM_OPTIONS, ...launch],
    env: { FAKETIME_FORCE_MONOTONIC_FIX: '0' },
  };
}

/**
 * Runs a Java worker program with `args` to its end and returns its stdout parsed as JSON: how
 * the controller asks a Java library for the statements it installs with. Asked once per
 * process and kept; a failure is an `AdapterError` quoting the program's stderr, and is not kept.
 */
export function javaProgramJson<T>(name: string, args: readonly string[]): () => Promise<T> {
  return askedOnce(async () => {
    const program = await javaNativeProgram(name);
    return programJson<T>(`${name} ${args.join(' ')}`, [...program.command, ...args]);
  });
}
