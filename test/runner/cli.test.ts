// The CLI's exit codes and the script's global scope, as `k6 run` gives them. Runs in Node.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleMessages, FIXTURES, runCli, tempDir } from './helpers';

describe('exit codes', () => {
  it('104 for a threshold on an unknown metric, before the test starts', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'unknown-metric.js')]);
    expect(r.code).toBe(104);
    expect(r.stderr).toContain('no_such_metric');
    expect(r.stderr).not.toContain('should not run');
  });

  it('104 for an aggregation the metric type lacks', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'bad-aggregation.js')]);
    expect(r.code).toBe(104);
  });

  it('104 for shortcut flags together with scenarios, and for csv file=', async () => {
    expect((await runCli(['run', '-q', '--duration', '1s', join(FIXTURES, 'executors.js')])).code).toBe(104);
    const r = await runCli(['run', '-q', '--out', 'csv=file=x.csv', join(FIXTURES, 'abort.js')], { cwd: tempDir() });
    expect(r.code).toBe(104);
    expect(r.stderr).toContain('unknown key');
  });

  it('107 for an exception in init code', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'init-throws.js')]);
    expect(r.code).toBe(107);
    expect(r.stderr).toContain('init failed on purpose');
  });

  it('107 for an exception in setup, and teardown is skipped', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'setup-throws.js')]);
    expect(r.code).toBe(107);
    expect(r.stderr).toContain('setup failed on purpose');
    expect(r.stderr).not.toContain('teardown ran');
  });

  it('108 for exec.test.abort()', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'abort.js')]);
    expect(r.code).toBe(108);
    expect(r.stderr).toContain('test aborted: stop here');
  });

  it('99 when an abortOnFail threshold fails: the run stops at the first evaluation', async () => {
    const t0 = Date.now();
    const r = await runCli(['run', '-q', join(FIXTURES, 'abort-on-fail.js')]);
    expect(r.code).toBe(99);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stderr).toContain("thresholds on metrics 'fx_ok' were crossed; at least one has abortOnFail enabled");
  });

  it('105 on SIGINT, with thresholds evaluated and handleSummary and outputs written', async () => {
    const dir = tempDir('runner-sigint-');
    let sent = false;
    const r = await runCli(['run', '-q', '--tag', 'testid=t1', '--out', 'csv=fileName=s.csv,timeFormat=unix_milli', '--summary-export', 'sum.json', join(FIXTURES, 'sigint.js')], {
      cwd: dir,
      onStderr: (text, child) => {
        if (!sent && text.includes('source=console')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    expect(r.code).toBe(105);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { metrics: Record<string, { values: { count: number }; thresholds: Record<string, { ok: boolean }> }> };
    const count = summary.metrics.fx_count!.values.count;
    expect(count).toBeGreaterThanOrEqual(1);
    expect(summary.metrics.fx_count!.thresholds['count>0']!.ok).toBe(true);
    expect(existsSync(join(dir, 'sum.json'))).toBe(true);
    const csv = readFileSync(join(dir, 's.csv'), 'utf8').split('\n').filter((l) => l.startsWith('fx_count,'));
    expect(csv).toHaveLength(count);
    // --tag lands on every sample (CSV: extra_tags).
    expect(csv.every((l) => l.endsWith(',testid=t1,'))).toBe(true);
  });
});

describe('script global scope', () => {
  it("looks like k6's, with __ENV from -e and the OS, __VU, __ITER, open(), SharedArray, and of module k6 only sleep", async () => {
    const r = await runCli(['run', '-q', '-e', 'FX_VALUE=42', join(FIXTURES, 'globals.js')], { env: { FX_OS: 'yes' } });
    expect(r.code).toBe(0);
    const seen = consoleMessages(r.stderr).map((m) => JSON.parse(m) as Record<string, unknown>);
    expect(seen).toHaveLength(2);
    for (const g of seen) {
      expect(g).toMatchObject({
        process: 'undefined',
        require: 'undefined',
        Buffer: 'undefined',
        fetch: 'undefined',
        performance: 'undefined',
        TextEncoder: 'undefined',
        setTimeout: 'function',
        clearTimeout: 'function',
        setInterval: 'function',
        console: 'object',
        global: 'object',
        env: '42',
        home: 'string',
        shared: 2,
        first: 'alpha',
        iter: 0,
        checkError: 'check() is not supported by the local runner: of the k6 module it supports only sleep',
      });
      expect(g.vu).toBe(g.idInTest);
    }
    expect(new Set(seen.map((g) => g.vu))).toEqual(new Set([1, 2]));
  });

  it('prints a text summary without handleSummary', async () => {
    const r = await runCli(['run', '-q', '--no-color', join(FIXTURES, 'globals.js')]);
    expect(r.stdout).toContain('█ TOTAL RESULTS');
    expect(r.stdout).not.toContain('checks');
    expect(r.stdout).toMatch(/iterations\.+: 2 /);
  });
});
