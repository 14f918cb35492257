import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvironmentError } from '../errors.js';
import { exists, sourceFiles } from './source-files.js';
import { runTool } from './run-tool.js';

/** leaseproof's Go client (`clients/go`), shipped with the package. */
export const GO_CLIENT_DIR = fileURLToPath(new URL('../../clients/go/', import.meta.url));

/** The worker programs of the Go client (`clients/go/cmd/<name>`). */
export const GO_PROGRAMS: readonly string[] = ['river-native'];

/** Where built worker programs go, relative to the project root. */
export const GO_TOOLS_DIR = join('.tools', 'go');

// The function the clock overlay renames in the toolchain's time.go, found by its exact text.
const NOW_DECLARATION = 'func Now() Time {';

/** Options for finding or building a Go worker program. */
export interface GoInstallOptions {
  /** Project root holding `.tools/` (default: the current directory). */
  projectRoot?: string;
  /** The `go` command (default `LEASEPROOF_GO`, else `go`). */
  go?: string;
  /** Progress lines for a person. */
  log?: (line: string) => void;
}

/**
 * A Go worker program of leaseproof's Go client (`clients/go/cmd/<name>`), built on first need
 * into `.tools/go/<name>-<key>` and kept: the key hashes the client's sources and the Go
 * toolchain's version, so a change of either builds afresh and an unchanged one is instant.
 *
 * It is built with `go build -overlay`: the toolchain's `time.Now` is renamed and replaced by
 * one that adds the offset in `LEASEPROOF_CLOCK_FILE` (`clients/go/clock/skew_now.go.txt`), so
 * leaseproof can skew the program's wall clock while its monotonic clock stays real —
 * libfaketime cannot reach Go, which reads the clock itself. A toolchain whose `time.go` does
 * not declare `Now` as expected is refused, not half-patched. Two processes building at once
 * each build a private copy and the first rename wins.
 */
export async function ensureGoProgram(
  name: string,
  options: GoInstallOptions = {},
): Promise<string> {
  const root = resolve(options.projectRoot ?? '.');
  const go = options.go ?? process.env.LEASEPROOF_GO ?? 'go';
  const goEnv = await goEnvironment(go);
  const key = await sourceKey(goEnv.version);
  const dir = resolve(root, GO_TOOLS_DIR);
  const program = join(dir, `${name}-${key}`);
  if (await exists(program)) return program;

  const log = options.log ?? (() => undefined);
  log(`building the Go worker program ${name} into ${dir} (${goEnv.version}; first time only)`);
  const stage = join(dir, `.stage-${name}-${process.pid}`);
  await rm(stage, { recursive: true, force: true });
  await mkdir(stage, { recursive: true });
  try {
    const overlay = join(stage, 'overlay.json');
    await writeFile(overlay, JSON.stringify({ Replace: await clockOverlay(goEnv.goroot, stage) }));
    const source = join(stage, 'src');
    await cp(GO_CLIENT_DIR, source, { recursive: true });
    const vendored = await rescaleLibrary(go, name, source);
    await runTool(
      go,
      [
        'build',
        '-trimpath',
        ...(vendored ? ['-mod=vendor'] : []),
        '-overlay',
        overlay,
        '-o',
        join(stage, name),
        `./cmd/${name}`,
      ],
      { cwd: source },
    );
    await rename(join(stage, name), program);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  log(`  built ${program}`);
  return program;
}

/**
 * Writes, in `dir`, a `go build -overlay` file that puts leaseproof's clock into the toolchain's
 * `time` package (what `ensureGoProgram` builds with), and returns its path: for `go test` of
 * the clock itself.
 */
export async function writeClockOverlay(dir: string, go = 'go'): Promise<string> {
  const { goroot } = await goEnvironment(go);
  const overlay = join(dir, 'overlay.json');
  await writeFile(overlay, JSON.stringify({ Replace: await clockOverlay(goroot, dir) }));
  return overlay;
}

/** The overlay entries that put leaseproof's clock into the toolchain's `time` package. */
async function clockOverlay(goroot: string, stage: string): Promise<Record<string, string>> {
  const timeGo = join(goroot, 'src', 'time', 'time.go');
  const source = await readFile(timeGo, 'utf8');
  const found = source.split('\n').filter((line) => line === NOW_DECLARATION).length;
  if (found !== 1) {
    throw new EnvironmentError(
      `${timeGo} declares "${NOW_DECLARATION}" ${String(found)} times, not once: this Go ` +
        "toolchain's time package is not the one leaseproof's clock overlay was written for, " +
        'so a Go worker program could not have its clock skewed (use Go 1.26 or later, as River 0.51 requires)',
    );
  }
  const patched = join(stage, 'time.go');
  await writeFile(patched, source.replace(NOW_DECLARATION, 'func nowReal() Time {'));
  return {
    [timeGo]: patched,
    [join(goroot, 'src', 'time', 'leaseproof_skew.go')]: join(
      GO_CLIENT_DIR,
      'clock',
      'skew_now.go.txt',
    ),
  };
}

/** `cmd/<name>/rescale.json`: edits to a library's source that a program's build makes. */
interface LibraryRescale {
  module: string;
  edits: { file: string; from: string; to: string }[];
  add: Record<string, string>;
}

/**
 * (Exported for tests.) Applies a program's `rescale.json`, if it has one, to a vendored copy of the library in the
 * program's build tree (`go build -overlay` may not replace files of the module cache): each
 * edit's `from` text must be found exactly once in the library's source — a library whose text
 * differs is refused by name, never built half-rescaled — and each added file goes into the
 * library's package directory. True when the tree is vendored.
 */
export async function rescaleLibrary(go: string, name: string, source: string): Promise<boolean> {
  const programDir = join(source, 'cmd', name);
  const text = await readFile(join(programDir, 'rescale.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  const rescale = JSON.parse(text) as LibraryRescale;
  await runTool(go, ['mod', 'vendor'], { cwd: source });
  const moduleDir = join(source, 'vendor', rescale.module);
  for (const edit of rescale.edits) {
    const file = join(moduleDir, edit.file);
    const original = await readFile(file, 'utf8');
    const found = original.split(edit.from).length - 1;
    if (found !== 1) {
      throw new EnvironmentError(
        `${rescale.module}/${edit.file} holds the text that clients/go/cmd/${name}/rescale.json ` +
          `rescales ${String(found)} times, not once: this is not the version of ` +
          `${rescale.module} the program ${name} was written for ` +
          `(expected ${JSON.stringify(edit.from)})`,
      );
    }
    await writeFile(file, original.replace(edit.from, edit.to));
  }
  for (const [target, added] of Object.entries(rescale.add)) {
    await cp(join(programDir, added), join(moduleDir, target));
  }
  return true;
}

async function goEnvironment(go: string): Promise<{ version: string; goroot: string }> {
  const out = await runTool(go, ['env', 'GOVERSION', 'GOROOT']).catch(() => {
    throw new EnvironmentError(
      `a Go worker program needs the Go toolchain, and "${go}" could not be run ` +
        '(install Go 1.26 or later, as River 0.51 requires, from https://go.dev/dl, or set LEASEPROOF_GO to the go command)',
    );
  });
  const [version = '', goroot = ''] = out.trim().split('\n');
  return { version, goroot };
}

/** A hash of the Go client's sources and the toolchain version: the build's cache key. */
async function sourceKey(version: string): Promise<string> {
  const hash = createHash('sha256').update(version);
  for (const file of await sourceFiles(GO_CLIENT_DIR, (name) => /\.(go|txt|mod|sum)$/.test(name))) {
    hash.update(relative(GO_CLIENT_DIR, file)).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}
