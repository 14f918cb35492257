import { spawnSync } from 'node:child_process';

const runs = (command: string, args: string[]) =>
  spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** Whether Java and Maven are here (the Java worker tests skip, saying so, when not). */
export const haveJava =
  runs(process.env.LEASEPROOF_JAVA ?? 'java', ['-version']) &&
  runs(process.env.LEASEPROOF_MVN ?? 'mvn', ['-v']);

/** The title suffix of a test that needs Java and Maven. */
export const javaSkipReason = haveJava
  ? ''
  : ' (skipped: no Java 17+ or no Maven here; apt-get install openjdk-17-jdk-headless maven, or set LEASEPROOF_JAVA and LEASEPROOF_MVN)';
