/**
 * The browser side of a timeline page, as the one script the page inlines. Its source is the
 * TypeScript module `browser/timeline.ts` (type-checked against the DOM, importing the fault
 * kinds' colours straight from their table); esbuild bundles it into one IIFE. `npm run build`
 * writes that bundle beside this module in dist/, so the installed package only reads a file and
 * never needs esbuild; run from source (tests, benches), this module bundles on first use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The bundle's file name, in the same folder of dist/ as this module. */
export const TIMELINE_BUNDLE_FILE = 'timeline-browser.js';

const BUILT = new URL(`./${TIMELINE_BUNDLE_FILE}`, import.meta.url);
const ENTRY = new URL('./browser/timeline.ts', import.meta.url);
// The package root: esbuild names each bundled file in a comment relative to it, so the bundle
// reads the same whatever folder the build ran from.
const ROOT = new URL('../..', import.meta.url);

const OPTIONS: BuildOptions = {
  bundle: true,
  // One statement with no globals of its own: the page inlines it in a plain <script>.
  format: 'iife',
  // Lowered to what every browser of the last few years runs: reports are opened anywhere.
  target: 'es2020',
  charset: 'utf8',
  legalComments: 'none',
  write: false,
  logLevel: 'silent',
};

let cached: string | undefined;

/** The script a timeline page inlines: the built bundle, or bundled now (once per process). */
export function timelineScript(): string {
  cached ??= existsSync(BUILT) ? readFileSync(BUILT, 'utf8') : bundleTimelineScript();
  return cached;
}

/**
 * Bundles `browser/timeline.ts` with esbuild and returns the script. Only a source checkout has
 * that file (and esbuild, a devDependency); the build calls this to write the bundle to dist/.
 */
export function bundleTimelineScript(): string {
  if (!existsSync(ENTRY)) {
    throw new Error(
      `The timeline page's script is neither built (${fileURLToPath(BUILT)}) nor in source ` +
        `(${fileURLToPath(ENTRY)}): run npm run build.`,
    );
  }
  // Loaded here, not at the top: the installed package reads the built bundle and has no esbuild.
  const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = buildSync({
    ...OPTIONS,
    entryPoints: [fileURLToPath(ENTRY)],
    absWorkingDir: fileURLToPath(ROOT),
  });
  const [output] = result.outputFiles ?? [];
  if (output === undefined) throw new Error('esbuild wrote no timeline script');
  return output.text;
}
