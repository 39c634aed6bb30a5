// Bench progress from a growing k6 CSV, and the status line it renders. Runs in Node (vitest).

import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { resolvePlan } from '../../lib/plan';
import {
  applyRequest,
  CsvTail,
  initialProgress,
  renderErrorMessages,
  renderProgressLine,
  requestCounts,
} from '../../orchestrator/progress';
import { tempDir } from '../e2e/helpers';

const HEADER =
  'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,' +
  'scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n';
const row = (metric: string, scenario: string, value: number) =>
  `${metric},1795324657507,${value.toFixed(6)},,,,,,,chat,,${scenario},,200,,,` +
  `http://x/v1/chat/completions,cell=${scenario}&context=1024,\n`;

describe('CsvTail', () => {
  it('counts one request per llm_request_ok row, consuming only whole lines', () => {
    const file = path.join(tempDir('tail'), 'samples.csv');
    const seen: [string, boolean][] = [];
    const tail = new CsvTail(file);
    tail.poll((s, ok) => seen.push([s, ok])); // no file yet: nothing
    writeFileSync(file, HEADER + row('llm_ttft', 'a', 50) + row('llm_request_ok', 'a', 1));
    appendFileSync(file, 'llm_request_ok,1795324657507,0.000000,,,,,,,chat,,a'); // partial line
    tail.poll((s, ok) => seen.push([s, ok]));
    expect(seen).toEqual([['a', true]]);
    appendFileSync(file, ',,200,,,http://x,cell=a,\n' + row('llm_request_ok', 'b', 1));
    tail.poll((s, ok) => seen.push([s, ok]));
    expect(seen).toEqual([['a', true], ['a', false], ['b', true]]);
  });

  it("names a bench-driven run's requests by their cell tag, wherever it stands in extra_tags (the scenario is " +
    "'driven' for all)", () => {
    const file = path.join(tempDir('tail-driven'), 'samples.csv');
    const driven = (tags: string) =>
      `llm_request_ok,1795324657507,1.000000,,,,,,,chat,,driven,,200,,,http://x/v1/chat/completions,${tags},\n`;
    writeFileSync(
      file, HEADER + driven('cell=capacity_x_n2&phase=measured') + driven('phase=warmup&cell=capacity_x_n3'),
    );
    const seen: string[] = [];
    new CsvTail(file).poll((cell) => seen.push(cell));
    expect(seen).toEqual(['capacity_x_n2', 'capacity_x_n3']);
  });
});

describe('renderProgressLine', () => {
  it('puts the part, cell number, requests and times before the cell name', () => {
    const plan = resolvePlan(
      { sweep: { contexts: [1024], concurrencies: [1, 2], rounds: 2 }, schedule: { cellSeconds: 60, gapSeconds: 0 } },
      'sweep',
    );
    const state = initialProgress(plan, 0, 2);
    applyRequest(state, 'sweep_c1k_o1k_n1', true);
    applyRequest(state, 'sweep_c1k_o1k_n1', true);
    applyRequest(state, 'sweep_c1k_o1k_n2', false);
    state.elapsedSeconds = 75;
    const leftSeconds = plan.totalSeconds - 75;
    expect(renderProgressLine(state)).toBe(
      `[sweep 1/2] cell 2/2 | 3/6 requests, 1 failed | elapsed 1m15s | ETA <= ` +
      `${Math.floor(leftSeconds / 60)}m${String(Math.round(leftSeconds) % 60).padStart(2, '0')}s ` +
      `| sweep_c1k_o1k_n2 1/4`,
    );
    for (let i = 0; i < 3; i++) applyRequest(state, 'sweep_c1k_o1k_n2', true);
    expect(renderProgressLine(state)).toBe('[sweep 1/2] all 2 cells done | 6/6 requests, 1 failed | elapsed 1m15s');
  });
});

describe('progress of steps that hold their time', () => {
  it('counts an agentic step\'s requests without a plan of them, and moves on when its slot ends', () => {
    const plan = resolvePlan({ agentic: { agents: [1, 2], rampSeconds: 0, warmupSeconds: 1, holdSeconds: 5 } },
      'agentic');
    const state = initialProgress(plan, 0, 1);
    const [first, second] = plan.cells;
    for (let i = 0; i < 7; i++) applyRequest(state, first!.id, true);
    state.elapsedSeconds = 3;
    expect(renderProgressLine(state))
      .toMatch(/^\[agentic 1\/1\] cell 1\/2 \| 7 requests \| elapsed 3s \| .* agentic_n1 7$/);
    state.elapsedSeconds = second!.startSeconds + 1;
    expect(renderProgressLine(state)).toMatch(/cell 2\/2 \| 7 requests .* agentic_n2 0$/);
    // None is cut: a held step sends what fits in its time.
    expect(requestCounts(state)).toEqual({ planned: 7, succeeded: 7, failed: 0, cut: 0 });
  });
});

describe('requestCounts', () => {
  it('counts successes, failures, and as cut only the unfinished requests of cells that started', () => {
    const plan = resolvePlan(
      { sweep: { contexts: [256], concurrencies: [1, 2, 4], rounds: 2, outputTokens: 8 } }, 'sweep',
    );
    const state = initialProgress(plan, 0, 1);
    const [n1, n2] = plan.cells;
    for (const ok of [true, false]) applyRequest(state, n1!.id, ok); // cell 1: 2 of 2 ended
    applyRequest(state, n2!.id, true); // cell 2: 1 of 4 ended, then Ctrl-C; cell 3 never started
    expect(requestCounts(state)).toEqual({ planned: 2 + 4 + 8, succeeded: 2, failed: 1, cut: 3 });
  });
});

describe('CsvTail error messages', () => {
  it('counts failures per cell, kind and message from llm_errors rows, messages with commas and quotes ' +
    'included', () => {
    const file = path.join(tempDir('tail-errors'), 'samples.csv');
    const err = (cell: string, kind: string, message: string) =>
      `llm_errors,1795324657507,1.000000,,,,,,,chat,,${cell},,500,,,http://x/v1/chat/completions,cell=${cell}&error_kind=${kind},` +
      `${Papa.unparse([[`error_message=${message}`]])}\n`;
    writeFileSync(
      file,
      HEADER +
        err('c_n1', 'http_5xx', 'CUDA out of memory') +
        err('c_n1', 'http_5xx', 'CUDA out of memory') +
        err('c_n1', 'http_5xx', 'engine dead, "retry"') +
        err('c_n2', 'stalled', 'no data read for 2m0s (idleTimeout)'),
    );
    const tail = new CsvTail(file);
    tail.poll(() => undefined);
    expect(renderErrorMessages(tail.errorMessages.values()).split('\n')).toEqual([
      'failures, most frequent messages per cell and kind:',
      '  c_n1 http_5xx x2: CUDA out of memory',
      '  c_n1 http_5xx x1: engine dead, "retry"',
      '  c_n2 stalled x1: no data read for 2m0s (idleTimeout)',
    ]);
    expect(renderErrorMessages([])).toBe('');
  });
});
