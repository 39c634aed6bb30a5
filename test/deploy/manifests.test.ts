// Tests for the deploy YAML files and every deploy file's one-line opening comment. Runs in Node (vitest).
// The YAML files of deploy/prometheus, deploy/k6-operator, deploy/ci and deploy/docker parse (js-yaml) and carry what
// the suite needs.

import { pinnedK6Version } from '../../orchestrator/k6-build';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCUMENTED_TREND_STATS, isAllowedName, metricNamesIn } from './promql-names';
import * as yaml from 'js-yaml';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

const YAML_FILES = [
  'deploy/prometheus/prometheus.yml',
  'deploy/prometheus/recording-rules.yml',
  'deploy/k6-operator/testrun-sweep.yaml',
  'deploy/k6-operator/testrun-configmap.yaml',
  'deploy/k6-operator/testrun-split-capacity.yaml',
  'deploy/ci/github-actions-llm-gate.yml',
  'deploy/ci/gitlab-ci-llm-gate.yml',
  'deploy/docker/compose.yml',
  'deploy/grafana/provisioning/datasources/prometheus.yml',
  'deploy/grafana/provisioning/dashboards/k6-llm-capacity.yml',
];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function parsed(path: string): unknown[] {
  return yaml.loadAll(read(path));
}

describe('YAML files', () => {
  it.each(YAML_FILES)('%s parses into YAML documents', (path) => {
    const docs = yaml.loadAll(read(path));
    expect(docs.length).toBeGreaterThan(0);
    for (const d of docs) expect(typeof d).toBe('object');
  });
});

describe('prometheus', () => {
  const text = read('deploy/prometheus/prometheus.yml');

  it('documents the remote-write receiver and native-histogram flags', () => {
    expect(text).toContain('--web.enable-remote-write-receiver');
    expect(text).toContain('--enable-feature=native-histograms');
    expect(text).toContain('K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM');
  });

  it('scrapes vLLM, SGLang and a DCGM exporter and loads the recording rules', () => {
    for (const job of ['vllm', 'sglang', 'dcgm']) expect(text).toMatch(new RegExp(`job_name: ${job}\\b`));
    expect(text).toMatch(/rule_files:\n(?:\s*#.*\n)*\s+- recording-rules\.yml/);
    const config = obj(parsed('deploy/prometheus/prometheus.yml')[0]);
    const jobs = arr(config.scrape_configs).map((j) => obj(j).job_name);
    expect(jobs).toEqual(expect.arrayContaining(['vllm', 'sglang', 'dcgm']));
    expect(config.rule_files).toEqual(['recording-rules.yml']);
  });

  it('recording rules read only names derived from lib/metrics.ts', () => {
    const exprs = [...read('deploy/prometheus/recording-rules.yml').matchAll(/^\s+expr: '(.*)'$/gm)].map((m) => m[1]!);
    expect(exprs.length).toBeGreaterThan(10);
    for (const e of exprs) for (const name of metricNamesIn(e)) expect(isAllowedName(name), `${name} in ${e}`).toBe(true);
    const rules = arr(obj(arr(obj(parsed('deploy/prometheus/recording-rules.yml')[0]).groups)[0]).rules).map(obj);
    expect(rules.map((r) => r.expr)).toEqual(exprs);
    for (const r of rules) expect(r.record).toMatch(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/);
  });
});

describe('k6-operator', () => {
  it.each(['deploy/k6-operator/testrun-sweep.yaml', 'deploy/k6-operator/testrun-configmap.yaml'])(
    '%s is a TestRun with remote write, a testid, the runner image and the target',
    (path) => {
      const text = read(path);
      expect(text).toMatch(/^apiVersion: k6\.io\/v1alpha1$/m);
      expect(text).toMatch(/^kind: TestRun$/m);
      expect(text).toMatch(/^ {2}parallelism: \d+$/m);
      expect(text).toMatch(/^ {2}arguments: .*-o experimental-prometheus-rw.*--tag testid=\S+/m);
      expect(text).toMatch(/per runner|PER RUNNER/);
      const spec = obj(obj(parsed(path)[0]).spec);
      const script = obj(spec.script);
      expect(script.configMap !== undefined || script.localFile !== undefined || script.volumeClaim !== undefined).toBe(
        true,
      );
      const runner = obj(spec.runner);
      expect(typeof runner.image).toBe('string');
      const env = new Map(arr(runner.env).map((e) => [obj(e).name, obj(e).value]));
      expect(env.has('BASE_URL')).toBe(true);
      expect(env.get('K6_PROMETHEUS_RW_SERVER_URL')).toMatch(/\/api\/v1\/write$/);
      expect(env.get('K6_PROMETHEUS_RW_TREND_STATS')).toBe(DOCUMENTED_TREND_STATS);
    },
  );

  it('the ConfigMap variant points PLAN at the mounted plan file', () => {
    expect(read('deploy/k6-operator/testrun-configmap.yaml')).toMatch(/name: PLAN\n\s+value: \/test\/plan\.json/);
  });
});

describe('local stack', () => {
  it('compose starts Prometheus with the remote-write receiver and Grafana with the provisioned dashboard', () => {
    const text = read('deploy/docker/compose.yml');
    expect(text).toContain('--web.enable-remote-write-receiver');
    expect(text).toContain('../grafana/provisioning:/etc/grafana/provisioning');
    const dashboards = read('deploy/grafana/provisioning/dashboards/k6-llm-capacity.yml');
    expect(dashboards).toContain('path: /var/lib/grafana/dashboards/k6-llm-capacity');
    expect(text).toContain('../grafana:/var/lib/grafana/dashboards/k6-llm-capacity');
  });
});

describe('CI examples', () => {
  it('GitHub Actions runs the gate with k6, treats 99 as a threshold failure and reports against a baseline', () => {
    const text = read('deploy/ci/github-actions-llm-gate.yml');
    expect(text).toContain('npm run build:k6');
    expect(text).toContain('.cache/k6/k6 run dist/gate.js');
    expect(text).toMatch(/99\)/);
    expect(text).toMatch(/npm run report -- "results\/\$RUN_ID\/gate" --baseline/);
    const wf = obj(parsed('deploy/ci/github-actions-llm-gate.yml')[0]);
    const steps = arr(obj(obj(wf.jobs).gate).steps).map(obj);
    const gate = steps.find((s) => s.id === 'gate');
    expect(String(gate?.run)).toContain('exit "$code"');
    expect(steps.some((s) => String(s.run ?? '').includes('--baseline'))).toBe(true);
  });

  it('GitLab CI runs the gate with k6 and reports against the last passing run', () => {
    const text = read('deploy/ci/gitlab-ci-llm-gate.yml');
    expect(text).toContain('LLM_BUNDLE: dist/gate.js');
    expect(text).toContain('k6 run "$LLM_BUNDLE"');
    expect(text).toContain('--baseline');
    const ci = obj(parsed('deploy/ci/gitlab-ci-llm-gate.yml')[0]);
    expect(arr(obj(ci['llm-gate']).script).join('\n')).toContain('exit "$code"');
    expect(obj(ci['llm-report']).when).toBe('always');
  });
});

describe('Dockerfile', () => {
  const text = read('deploy/docker/Dockerfile');

  it('builds k6 with k6/x/llm from xk6-llm/ in a separate stage and copies the bundles', () => {
    expect(text).toMatch(/^FROM golang:\S+ AS builder$/m);
    expect(text).toMatch(/^COPY xk6-llm\/ \.\/$/m);
    expect(text).toContain('go build -trimpath -buildvcs=false -o /build/k6 ./cmd/k6');
    expect(text).toMatch(/^COPY --from=builder /m);
    expect(text).toMatch(/^COPY dist\/ \/scripts\/$/m);
    expect(read('deploy/docker/Dockerfile.dockerignore')).toMatch(/^!xk6-llm\/$/m);
  });

  it("runs on the official image of the k6 version pinned in xk6-llm/go.mod", () => {
    const tag = /^ARG K6_IMAGE_TAG=(\S+)$/m.exec(text)?.[1];
    expect(`v${tag}`).toBe(pinnedK6Version(read('xk6-llm/go.mod')));
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(new URL(dir, root)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(new URL(path, root)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('every deploy file', () => {
  it('starts with a one-line comment saying what it does and where it runs', () => {
    for (const path of filesUnder('deploy')) {
      if (path.endsWith('.json') || path.endsWith('.md')) continue; // JSON has no comments; the README is prose
      const first = read(path).split('\n')[0]!;
      expect(first, path).toMatch(/^(#|\/\/) \S.{20,}/);
    }
  });
});

describe('npm run dashboard', () => {
  it('--check passes on the committed files', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'deploy/grafana/build-dashboard.ts', '--check'], {
      cwd: new URL('.', root), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toBe('');
  });
});
