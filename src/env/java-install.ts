import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../errors.js';
import { exists, sourceFiles } from './source-files.js';
import { runTool, ToolFailedError } from './run-tool.js';

/** leaseproof's Java client and its targets (`clients/java`, a Maven project), shipped with the package. */
export const JAVA_CLIENT_DIR = fileURLToPath(new URL('../../clients/java/', import.meta.url));

/** The runnable jar the Java client builds (its pom's `finalName`), holding every target. */
export const JAVA_PROGRAMS: readonly string[] = ['leaseproof-java'];

/** Where built jars go, relative to the project root. */
export const JAVA_TOOLS_DIR = join('.tools', 'java');

/** Options for finding or building the Java worker program. */
export interface JavaInstallOptions {
  /** Project root holding `.tools/` (default: the current directory). */
  projectRoot?: string;
  /** The `mvn` command (default `LEASEPROOF_MVN`, else `mvn`). */
  mvn?: string;
  /** The `java` command (default `LEASEPROOF_JAVA`, else `java`). */
  java?: string;
  /** Progress lines for a person. */
  log?: (line: string) => void;
}

/** The `java` command leaseproof runs Java worker programs with. */
export function javaCommand(): string {
  return process.env.LEASEPROOF_JAVA ?? 'java';
}

/**
 * The Java client's runnable jar (`clients/java`, `mvn -B -q package`), built on first need into
 * `.tools/java/<name>-<key>.jar` and kept: the key hashes the client's sources (pom and
 * `src/main`), so a change builds afresh and an unchanged one is found without Maven — offline
 * once built, since its dependencies are pinned in the pom. The build runs in a private copy,
 * its tests left to `mvn test` (test/env/java-install.test.ts runs them); two processes building
 * at once each build a copy and the first rename wins. A missing `java` or `mvn` is an
 * `EnvironmentError` saying what to install; a failed build quotes Maven's output.
 */
export async function ensureJavaProgram(
  name: string,
  options: JavaInstallOptions = {},
): Promise<string> {
  const root = resolve(options.projectRoot ?? '.');
  const java = options.java ?? javaCommand();
  await runTool(java, ['-version']).catch((error: unknown) => {
    throw new EnvironmentError(
      `a Java worker program needs Java 17 or later, and "${java}" could not be run ` +
        `(${describe(error)}; Debian/Ubuntu: apt-get install openjdk-17-jdk-headless, or set LEASEPROOF_JAVA)`,
    );
  });
  const key = await sourceKey();
  const dir = resolve(root, JAVA_TOOLS_DIR);
  const jar = join(dir, `${name}-${key}.jar`);
  if (await exists(jar)) return jar;

  const mvn = options.mvn ?? process.env.LEASEPROOF_MVN ?? 'mvn';
  const log = options.log ?? (() => undefined);
  log(`building the Java worker program ${name} into ${dir} with Maven (first time only)`);
  const stage = join(dir, `.stage-${name}-${String(process.pid)}`);
  await rm(stage, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  try {
    const source = join(stage, 'src');
    await cp(JAVA_CLIENT_DIR, source, {
      recursive: true,
      filter: (from) => !relative(JAVA_CLIENT_DIR, from).startsWith('target'),
    });
    await runTool(mvn, ['-B', '-q', 'package', '-DskipTests'], {
      cwd: source,
      tailLines: 30,
    }).catch((error: unknown) => {
      if (error instanceof ToolFailedError) throw error;
      throw new EnvironmentError(
        `a Java worker program is built with Maven, and "${mvn}" could not be run ` +
          `(${describe(error)}; Debian/Ubuntu: apt-get install maven, or set LEASEPROOF_MVN)`,
      );
    });
    await rename(join(source, 'target', `${name}.jar`), jar);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`  built ${jar}`);
  return jar;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/** A hash of the Java client's pom and main sources: the build's cache key. */
async function sourceKey(): Promise<string> {
  const hash = createHash('sha256');
  const files = [
    join(JAVA_CLIENT_DIR, 'pom.xml'),
    ...(await sourceFiles(join(JAVA_CLIENT_DIR, 'src', 'main'))),
  ];
  for (const file of files) {
    hash.update(relative(JAVA_CLIENT_DIR, file)).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}
