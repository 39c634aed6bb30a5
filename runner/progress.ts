// Renders k6-like progress lines on stderr from the runner's events; redraws in place only on a TTY. Runs in Node.
import type { RunnerEmitter } from './events';
import type { RunHandle } from './run';
import type { ScenarioRuntime } from './scenario-runtime';

function clock(ms: number): string {
  const s = ms / 1000;
  const m = Math.floor(s / 60);
  return `${String(m).padStart(2, '0')}m${(s - m * 60).toFixed(1).padStart(4, '0')}s`;
}

function scenarioLine(sc: ScenarioRuntime, nameWidth: number, nowMs: number, startAt: number): string {
  const cfg = sc.config;
  const mark = sc.finished ? '✓' : sc.started ? ' ' : '•';
  const pct = `${Math.floor((sc.finished ? 1 : sc.progress) * 100)}%`.padStart(4);
  const detail = sc.started
    ? `${cfg.vus} VUs  ${sc.completed + sc.interrupted}/${cfg.vus * cfg.iterations} iters, ${cfg.iterations} per VU`
    : `waiting  ${((startAt - nowMs) / 1000).toFixed(1)}s`;
  return `${sc.name.padEnd(nameWidth)} ${mark} [ ${pct} ] ${detail}`;
}

/** Renders one progress block as a string (no I/O). */
export function renderProgress(run: RunHandle): string {
  const scs = run.scenarios();
  const width = Math.max(...scs.map((s) => s.name.length));
  const now = run.elapsedMs();
  const it = run.iterations();
  const active = scs.reduce((a, s) => a + s.activeVUs, 0);
  const lines = [`running (${clock(now)}), ${active}/${run.vusMax()} VUs, ${it.completed} complete and ${it.interrupted} interrupted iterations`];
  for (const sc of scs) lines.push(scenarioLine(sc, width, now, sc.config.startTimeMs));
  return lines.join('\n') + '\n';
}

/** Subscribes to a run; writes a block every second (redrawn in place on a TTY) and a final one at the end. */
export function attachProgress(events: RunnerEmitter, run: RunHandle, write: (text: string) => void, isTTY: boolean): void {
  let lastLines = 0;
  const draw = (): void => {
    const text = renderProgress(run);
    if (isTTY && lastLines > 0) write(`\u001b[${lastLines}A\u001b[J`);
    write(isTTY ? text : `\n${text}`);
    lastLines = text.split('\n').length - 1;
  };
  events.on('tick', draw);
  events.on('testEnd', draw);
}
