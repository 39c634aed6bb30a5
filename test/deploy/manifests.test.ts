// Tests for the deploy YAML files, the Docker files and every deploy file's one-line opening comment. Runs in Node
// (vitest). The YAML files of deploy/prometheus, deploy/k6-operator, deploy/ci and deploy/docker parse (js-yaml) and
// carry what the suite needs; the images run stock k6 beside our measuring agent, and the image's entrypoint is run
// here with fakes.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
    for (const e of exprs)
      for (const name of metricNamesIn(e)) expect(isAllowedName(name), `${name} in ${e}`).toBe(true);
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
      const hasScript =
        script.configMap !== undefined || script.localFile !== undefined || script.volumeClaim !== undefined;
      expect(hasScript).toBe(true);
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
  it('GitHub Actions runs the gate on stock k6 with the agent, treats 99 as a threshold failure ' +
    'and reports against a baseline', () => {
    const text = read('deploy/ci/github-actions-llm-gate.yml');
    expect(text).not.toMatch(/xk6|build:k6/);
    expect(text).toContain('cd agent && go build -o k6-llm-agent ./cmd/k6-llm-agent');
    expect(text).toMatch(/agent\/k6-llm-agent --host 127\.0\.0\.1 --port 0 .*&$/m);
    expect(text).toContain('k6 run dist/gate.js -e LLM_AGENT="$LLM_AGENT"');
    expect(text).toMatch(/99\)/);
    expect(text).toMatch(/npm run report -- "results\/\$RUN_ID\/gate" --baseline/);
    const wf = obj(parsed('deploy/ci/github-actions-llm-gate.yml')[0]);
    const steps = arr(obj(obj(wf.jobs).gate).steps).map(obj);
    expect(steps.find((s) => String(s.uses).startsWith('grafana/setup-k6-action@'))).toBeDefined();
    const gate = steps.findIndex((s) => s.id === 'gate');
    expect(String(steps[gate]?.run)).toContain('exit "$code"');
    // The agent starts in an earlier step and hands its URL on through GITHUB_ENV.
    const agent = steps.findIndex((s) => String(s.run ?? '').includes('>> "$GITHUB_ENV"'));
    expect(agent).toBeGreaterThanOrEqual(0);
    expect(agent).toBeLessThan(gate);
    expect(steps.some((s) => String(s.run ?? '').includes('--baseline'))).toBe(true);
  });

  it('GitLab CI runs the gate in the stock k6 image with the agent built by Go, ' +
    'and reports against the last passing run', () => {
    const text = read('deploy/ci/gitlab-ci-llm-gate.yml');
    expect(text).not.toMatch(/xk6|k6\/x\/llm/);
    expect(text).toContain('LLM_BUNDLE: dist/gate.js');
    expect(text).toContain('k6 run "$LLM_BUNDLE" -e LLM_AGENT="$LLM_AGENT"');
    expect(text).toContain('--baseline');
    const ci = obj(parsed('deploy/ci/gitlab-ci-llm-gate.yml')[0]);
    expect(obj(ci.variables).LLM_K6_IMAGE).toMatch(/^grafana\/k6:\d+\.\d+\.\d+$/);
    const build = arr(obj(ci['llm-agent']).script).join('\n');
    expect(build).toMatch(/cd agent && CGO_ENABLED=0 go build .*-o k6-llm-agent \.\/cmd\/k6-llm-agent/);
    const gate = obj(ci['llm-gate']);
    expect(gate.needs).toEqual(expect.arrayContaining(['llm-bundles', 'llm-agent']));
    const script = arr(gate.script).join('\n');
    expect(script).toMatch(/agent\/k6-llm-agent --host 127\.0\.0\.1 --port 0 .*&/);
    expect(script.indexOf('k6-llm-agent --host')).toBeLessThan(script.indexOf('k6 run'));
    expect(script).toContain('exit "$code"');
    expect(obj(ci['llm-report']).when).toBe('always');
  });
});

describe('Docker images', () => {
  const agentFile = read('deploy/docker/agent.Dockerfile');
  const k6File = read('deploy/docker/k6-agent.Dockerfile');
  const goBuild =
    /^RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false .*-o \/out\/k6-llm-agent \.\/cmd\/k6-llm-agent$/m;

  it('agent.Dockerfile builds agent/ with Go in one stage and ships the binary alone, on loopback port 7070', () => {
    expect(agentFile).toMatch(/^FROM golang:\S+ AS build$/m);
    expect(agentFile).toMatch(/^COPY agent\/ \.\/$/m);
    expect(agentFile).toMatch(goBuild);
    expect(agentFile).toMatch(/^FROM scratch$/m);
    expect(agentFile).toMatch(/^COPY --from=build \/out\/k6-llm-agent /m);
    expect(agentFile).toContain('ENTRYPOINT ["/usr/local/bin/k6-llm-agent"]');
    expect(agentFile).toContain('CMD ["--host", "127.0.0.1", "--port", "7070"]');
    expect(read('deploy/docker/agent.Dockerfile.dockerignore')).toMatch(/^!agent\/$/m);
  });

  it('k6-agent.Dockerfile is the official grafana/k6 image plus the agent, the entrypoint and the bundles', () => {
    expect(k6File).toMatch(/^FROM grafana\/k6:\$\{K6_IMAGE_TAG\}$/m);
    expect(k6File).toMatch(/^ARG K6_IMAGE_TAG=\d+\.\d+\.\d+$/m);
    expect(k6File).toMatch(goBuild);
    expect(k6File).toMatch(/^COPY --from=agent \/out\/k6-llm-agent \/usr\/local\/bin\/k6-llm-agent$/m);
    expect(k6File).toMatch(/^COPY dist\/ \/scripts\/$/m);
    expect(k6File).toContain('ENTRYPOINT ["/usr/local/bin/k6-agent-entrypoint.sh"]');
    // No k6 is built or replaced: the only binaries copied in are the agent's.
    expect(k6File).not.toMatch(/xk6|go\.k6\.io|\/usr\/bin\/k6/);
    const ignore = read('deploy/docker/k6-agent.Dockerfile.dockerignore');
    for (const kept of ['dist/', 'agent/', 'deploy/docker/k6-agent-entrypoint.sh'])
      expect(ignore).toContain(`!${kept}`);
  });

  it('deploy/ names one k6 version: the image tag, the TestRun runners and the CI examples', () => {
    const version = /^ARG K6_IMAGE_TAG=(\S+)$/m.exec(k6File)?.[1];
    const named = ['deploy/k6-operator', 'deploy/ci'].flatMap(filesUnder)
      .flatMap((path) => [...read(path).matchAll(/grafana\/k6:(\d[\w.-]*)|k6-version: '([^']+)'/g)])
      .map((m) => m[1] ?? m[2]);
    expect(named.length).toBeGreaterThan(3);
    expect(new Set(named)).toEqual(new Set([version]));
  });
});

describe('the k6-agent entrypoint', () => {
  const script = fileURLToPath(new URL('deploy/docker/k6-agent-entrypoint.sh', root));

  interface EntrypointRun { status: number | null; stdout: string; stderr: string; agent: { argv: string[] } }

  /** Runs the entrypoint with a fake agent, k6 and wget first on PATH; the fake agent says where it listens. */
  function runEntrypoint(agentFails: boolean): EntrypointRun {
    const dir = mkdtempSync(join(tmpdir(), 'k6-agent-entrypoint-'));
    const node = (name: string, body: string) => {
      writeFileSync(join(dir, name), `#!${process.execPath}\n${body}\n`);
      chmodSync(join(dir, name), 0o755);
    };
    node('k6-llm-agent', `import('node:fs').then(async (fs) => {
      const { createServer } = await import('node:http');
      const agent = { pid: process.pid, argv: process.argv.slice(2) };
      fs.writeFileSync(process.env.FAKE_DIR + '/agent.json', JSON.stringify(agent));
      if (process.env.FAKE_AGENT_FAILS) process.exit(3);
      const server = createServer((req, res) => { res.statusCode = req.url === '/health' ? 200 : 404; res.end(); });
      server.listen(Number(process.argv[process.argv.indexOf('--port') + 1]), '127.0.0.1', () =>
        process.stdout.write('agent listening on http://127.0.0.1:' + server.address().port + '\\n'));
    });`);
    node(
      'wget', 'fetch(process.argv.at(-1)).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1));',
    );
    writeFileSync(join(dir, 'k6'), '#!/bin/sh\necho "LLM_AGENT=$LLM_AGENT k6 $*"\n');
    chmodSync(join(dir, 'k6'), 0o755);
    // stderr to a file: the agent inherits it and outlives the script, so a pipe would stay open.
    const shArgs = ['-c', 'sh "$0" "$@" 2>"$FAKE_DIR/stderr"', script, 'run', '/scripts/gate.js', '--tag', 'testid=t'];
    const run = spawnSync('sh', shArgs, {
      encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, PATH: `${dir}:${process.env.PATH}`, FAKE_DIR: dir, LLM_AGENT_PORT: '0', TMPDIR: dir,
        ...(agentFails ? { FAKE_AGENT_FAILS: '1' } : {}),
      },
    });
    const agent = JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8')) as { pid: number; argv: string[] };
    try {
      process.kill(agent.pid);
    } catch {
      // already gone
    }
    const stderr = readFileSync(join(dir, 'stderr'), 'utf8');
    rmSync(dir, { recursive: true, force: true });
    return { status: run.status, stdout: run.stdout, stderr, agent };
  }

  it('starts the agent on loopback, takes its URL from the listening line, waits for /health, then execs k6', () => {
    const run = runEntrypoint(false);
    expect(run.agent.argv).toEqual(['--host', '127.0.0.1', '--port', '0']);
    expect(run.stdout).toMatch(/^LLM_AGENT=http:\/\/127\.0\.0\.1:\d+ k6 run \/scripts\/gate\.js --tag testid=t\n$/);
    expect(run.status).toBe(0);
  });

  it('stops with an error, and without running k6, when the agent dies', () => {
    const run = runEntrypoint(true);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('k6-llm-agent exited before it answered /health');
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
      const lines = read(path).split('\n');
      const first = lines[0]!.startsWith('#!') ? lines[1]! : lines[0]!; // after a shell script's #! line
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
