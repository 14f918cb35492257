import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

let cached: Promise<string> | undefined;

/**
 * The source of ECharts' standalone browser build (`echarts/dist/echarts.min.js`), read from
 * node_modules once per process, to inline into timeline pages so they open without a network.
 * `</script` cannot occur in it today; it is escaped anyway, as one occurrence would end the
 * page's script element early.
 */
export function echartsSource(): Promise<string> {
  cached ??= readFile(createRequire(import.meta.url).resolve('echarts/dist/echarts.min.js'), 'utf8')
    .then((source) => source.replace(/<\/script/gi, '<\\/script'))
    .catch((error: unknown) => {
      cached = undefined;
      throw error;
    });
  return cached;
}
