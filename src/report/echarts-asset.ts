/**
 * ECharts' standalone browser build, written once per report folder as a file beside the pages
 * that draw with it. Inlined, it was 1.1 MB in every timeline and made a 38-scenario report
 * 46 MB; as a file, pages load it with a relative `<script src>`, which browsers allow from
 * file:// too, so a report still opens from disk without a network.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

/** Where the library goes, relative to the folder it serves (a run folder, the tune folder). */
export const ECHARTS_ASSET = 'assets/echarts.min.js';

/**
 * Copies the library into `<dir>/assets/echarts.min.js` (replacing one there: it is always this
 * leaseproof's own, the build its pages' scripts are written against) and returns its path.
 */
export async function writeEchartsAsset(dir: string): Promise<string> {
  const target = join(dir, ECHARTS_ASSET);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), target);
  return target;
}

/**
 * The `<script src>` by which a page at `page` reaches the library at `asset` (both file paths):
 * relative, with `/` separators and URL-escaped, so it works from file:// and from a web server
 * alike, and wherever the folder is moved.
 */
export function assetSrc(page: string, asset: string): string {
  const path = relative(dirname(page), asset).split(sep).join('/');
  return path.split('/').map(encodeURIComponent).join('/');
}
