// A predicted run's charts (report/predicted.ts has the rest of its marks). Apart from predicted.ts, which the run's
// inputs read: the charts read the whole report. Runs in Node.

import type { ChartSpec } from './charts';
import type { PredictedInfo } from './predicted';

/**
 * Every chart titled as predicted, in the page and in its own SVG (charts/*.svg are opened and copied on their own);
 * unchanged for a measured run.
 */
export function markPredictedCharts(charts: readonly ChartSpec[], predicted: PredictedInfo | null): ChartSpec[] {
  if (!predicted) return [...charts];
  const mark = (text: string) => `PREDICTED: ${text}`;
  return charts.map((c) => {
    const title = c.option.title as { text?: unknown } | undefined;
    if (!title || typeof title.text !== 'string') return { ...c, title: mark(c.title) };
    return { ...c, title: mark(c.title), option: { ...c.option, title: { ...title, text: mark(title.text) } } };
  });
}
