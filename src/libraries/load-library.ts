/**
 * Loading a queue library that leaseproof tests but does not depend on: pg-boss and
 * graphile-worker are optional peer dependencies (a user tests the version they run; this
 * repository's devDependencies pin the versions its own tests use). A missing library is a clear
 * error that says what to install, never a stack from the module loader.
 */
import { createRequire } from 'node:module';
import { AdapterError } from '../queue/adapter-error.js';

const require = createRequire(import.meta.url);

/** A library the adapters drive, and the versions leaseproof was tested with. */
export interface LibrarySpec {
  /** The npm package name. */
  name: string;
  /** The version range the adapter is written for, e.g. `^10.0.0`. */
  range: string;
  /** The version this repository's tests ran. */
  tested: string;
}

/** The installed version of `spec`, or an `AdapterError` that says how to install it. */
export function libraryVersion(spec: LibrarySpec): string {
  try {
    return (require(`${spec.name}/package.json`) as { version: string }).version;
  } catch (error) {
    throw missing(spec, error);
  }
}

/** `require`s a module of the library (its CommonJS entry or a file of its `dist/`). */
export function requireLibrary<T>(spec: LibrarySpec, path: string = spec.name): T {
  libraryVersion(spec);
  try {
    return require(path) as T;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AdapterError(
      `the "${spec.name}" queue could not load ${path} from ${spec.name} ` +
        `${libraryVersion(spec)} (written for ${spec.range}, tested with ${spec.tested}): ${message}`,
      { cause: error },
    );
  }
}

function missing(spec: LibrarySpec, cause: unknown): AdapterError {
  return new AdapterError(
    `the "${spec.name}" queue drives the ${spec.name} package, which is not installed here: ` +
      `npm install --save-dev ${spec.name}@${spec.range} (leaseproof was tested with ${spec.tested})`,
    { cause },
  );
}
