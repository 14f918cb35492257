import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import { echartsSource } from '../../src/report/echarts-source.js';
import { buildTimelineData } from '../../src/report/timeline-data.js';
import { renderTimelineHtml } from '../../src/report/timeline-html.js';
import type { TimelineData } from '../../src/report/timeline-types.js';
import { cleanRun } from '../checker/fixtures/anomalies.js';
import { oddStaleAck } from './fixtures.js';

async function page(history = oddStaleAck()): Promise<{ html: string; data: TimelineData }> {
  const data = buildTimelineData(history, checkHistory(history));
  return { html: renderTimelineHtml(data, await echartsSource()), data };
}

describe('timeline.html', () => {
  it('renders a violation marker element and a link to it for each violation', async () => {
    const { html, data } = await page();
    expect(data.markers.map((m) => m.id)).toEqual(['v-no-stale-ack-1']);
    expect(html).toContain('<div class="violation marker" id="v-no-stale-ack-1"');
    expect(html).toMatch(/<a href="#v-no-stale-ack-1" data-marker="v-no-stale-ack-1">/);
    expect(html).toMatch(/<h2>Violations \(1\)<\/h2>/);
    expect(html.match(/class="violation marker"/g)).toHaveLength(1);
  });

  it('says so when there is nothing to show', async () => {
    const { html } = await page(cleanRun());
    expect(html).toContain('No violations.');
    expect(html).not.toContain('class="violation marker"');
  });

  it('is self-contained: ECharts, style, script and data inline, nothing loaded from anywhere', async () => {
    const { html } = await page();
    // (Booleans, not the page: a failure message with a megabyte of ECharts helps nobody.)
    expect(/<script[^>]+src=/i.test(html), 'a script loaded from a file').toBe(false);
    expect(/<link[^>]+href=/i.test(html), 'a linked stylesheet').toBe(false);
    expect(/url\(\s*['"]?https?:|@import/i.test(html), 'a style from the network').toBe(false);
    expect(html).toContain('echarts');
    expect(html.length).toBeGreaterThan(500_000); // the library itself is in the page
  });

  it('escapes odd strings: no string from the history can close the data element or inject markup', async () => {
    const { html, data } = await page();
    // Exactly the page's own three script elements close; the `</script>` in the job id
    // does not.
    expect(html.match(/<\/script>/g)).toHaveLength(3);
    expect(html).toContain(
      '<title>odd &lt;&amp;&quot;&#39;&gt; \u0001 &lt;/script&gt; [unconditional-ack]',
    );
    expect(html).toContain('job job&lt;&amp;&quot;&#39;&gt;');
    // The inlined data parses back to exactly what was built.
    const json = /<script type="application\/json" id="timeline-data">(.*?)<\/script>/s.exec(
      html,
    )![1]!;
    expect(JSON.parse(json)).toEqual(data);
  });
});
