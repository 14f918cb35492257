// Runs a report page's inline scripts in a bare VM context with just enough of a DOM and a
// recording stand-in for ECharts, so a unit test can read the chart options a page sets — axis
// types, zoom, budget lines — without a browser. What the page draws from them is for the
// Chromium tests.
import { runInNewContext } from 'node:vm';

/** One chart the page made: the element it drew into and each option it set, in order. */
export interface RecordedChart {
  element: string;
  options: Record<string, unknown>[];
}

interface FakeElement {
  id: string;
  textContent: string;
  clientWidth: number;
  style: Record<string, string>;
  [key: string]: unknown;
}

/** The page's inline scripts (not JSON data, not `src` ones), in document order. */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
}

/** The text of the page's `<script type="application/json" id="…">` elements, by id. */
function jsonElements(html: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of html.matchAll(
    /<script type="application\/json" id="([^"]+)">([\s\S]*?)<\/script>/g,
  )) {
    found.set(m[1]!, m[2]!);
  }
  return found;
}

/** Runs `html`'s inline scripts as a browser at `width` px would, and returns the charts made. */
export function runPageScripts(html: string, width = 1200): RecordedChart[] {
  const json = jsonElements(html);
  const elements = new Map<string, FakeElement>();
  const element = (id: string): FakeElement => {
    let el = elements.get(id);
    if (el === undefined) {
      el = {
        id,
        textContent: json.get(id) ?? '',
        clientWidth: width,
        style: {},
        hidden: false,
        classList: { add: () => undefined, remove: () => undefined },
        addEventListener: () => undefined,
        scrollIntoView: () => undefined,
      };
      elements.set(id, el);
    }
    return el;
  };
  const charts: RecordedChart[] = [];
  const echarts = {
    init(el: FakeElement) {
      const chart: RecordedChart = { element: el.id, options: [] };
      charts.push(chart);
      return {
        setOption: (option: Record<string, unknown>) => chart.options.push(option),
        on: () => undefined,
        dispatchAction: () => undefined,
        convertToPixel: () => [0, 0],
        resize: () => undefined,
      };
    },
    graphic: { clipRectByRect: (rect: unknown) => rect },
  };
  const context = {
    echarts,
    document: {
      getElementById: element,
      querySelector: () => null,
      querySelectorAll: () => [],
      body: { setAttribute: () => undefined },
    },
    window: { addEventListener: () => undefined },
    location: { hash: '' },
    history: { replaceState: () => undefined },
  };
  for (const script of inlineScripts(html)) runInNewContext(script, context);
  return charts;
}
