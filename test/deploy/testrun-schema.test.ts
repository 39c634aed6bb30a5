// Every TestRun under deploy/k6-operator/ against the k6-operator's own CRD schema, the agent beside every runner,
// and the split run's volume wiring. Runs in Node (vitest).
//
// The schema is grafana/k6-operator's TestRun CRD, vendored unchanged in test/fixtures/k6-operator/ with
// its licence (Apache-2.0); test/deploy/crd-schema.ts checks a manifest against it as the API server would.

import { readdirSync, readFileSync } from 'node:fs';
import * as yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { check } from './crd-schema';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The openAPIV3Schema of the CRD's served and stored version. */
function testRunSchema(): Obj {
  const crd = obj(yaml.load(read('test/fixtures/k6-operator/k6.io_testruns.yaml')));
  expect(obj(crd.spec).group).toBe('k6.io');
  const version = arr(obj(crd.spec).versions).map(obj).find((v) => v.served === true && v.storage === true)!;
  expect(version.name).toBe('v1alpha1');
  return obj(obj(version.schema).openAPIV3Schema);
}

const AGENT_IMAGE = 'registry.example.com/k6-llm-capacity/agent:test';

/** The documents of a manifest after the envsubst its header tells users to run. */
function manifestDocs(path: string): Obj[] {
  const text = read(path)
    .replace(/\$\{TESTID\}/g, 'capacity-20261126-120000')
    .replace(/\$\{AGENT_IMAGE\}/g, AGENT_IMAGE);
  return yaml.loadAll(text).map(obj);
}

const MANIFESTS = readdirSync(new URL('deploy/k6-operator/', root))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `deploy/k6-operator/${f}`);
const schema = testRunSchema();

describe('the TestRun schema check', () => {
  const valid = {
    apiVersion: 'k6.io/v1alpha1', kind: 'TestRun', metadata: { name: 't' },
    spec: { parallelism: 2, script: { localFile: '/x.js' } },
  };
  const withSpec = (spec: Obj) => ({ ...valid, spec: { ...valid.spec, ...spec } });

  it('accepts a minimal TestRun and quantities written as numbers or strings', () => {
    expect(check(schema, valid)).toEqual([]);
    expect(check(schema, withSpec({ runner: { resources: { requests: { cpu: 2, memory: '1Gi' } } } }))).toEqual([]);
  });

  it('refuses what the API server refuses: unknown fields, wrong types, missing required fields, bad enums', () => {
    expect(check(schema, withSpec({ paralelism: 2 }))).toEqual(['.spec.paralelism: unknown field']);
    expect(check(schema, withSpec({ parallelism: '2' }))).toEqual([
      '.spec.parallelism: must be of type integer, got "2"',
    ]);
    expect(check(schema, withSpec({ script: { configMap: { file: 'a.js' } } }))).toEqual([
      '.spec.script.configMap.name: is required',
    ]);
    expect(check(schema, withSpec({ cleanup: 'always' }))).toEqual(['.spec.cleanup: must be one of ["post"]']);
    expect(check(schema, withSpec({ runner: { env: [{ name: 'A', valueFrom: { fieldRef: {} } }] } }))).toEqual([
      '.spec.runner.env[0].valueFrom.fieldRef.fieldPath: is required',
    ]);
    const claims = [{ name: 'gpu' }, { name: 'gpu' }];
    expect(check(schema, withSpec({ runner: { resources: { claims } } }))).toEqual([
      '.spec.runner.resources.claims: duplicate entry ["gpu"] in a list of type map',
    ]);
  });
});

describe.each(MANIFESTS)('%s', (path) => {
  const docs = manifestDocs(path);
  const testRuns = docs.filter((d) => d.kind === 'TestRun');

  it('holds a TestRun that the k6-operator CRD schema accepts', () => {
    expect(testRuns.length).toBeGreaterThan(0);
    for (const testRun of testRuns) {
      expect(testRun.apiVersion).toBe('k6.io/v1alpha1');
      expect(check(schema, testRun)).toEqual([]);
    }
  });

  it('names in its envsubst line exactly the variables its YAML uses', () => {
    const text = read(path);
    const listed = /envsubst '([^']*)'/.exec(text)?.[1]?.match(/\$\{\w+\}/g) ?? [];
    const body = text.split('\n').filter((line) => !line.trimStart().startsWith('#')).join('\n');
    expect(new Set(listed)).toEqual(new Set(body.match(/\$\{\w+\}/g)));
  });

  // The operator builds every runner pod from spec.runner, so init containers there are in each runner's pod: one agent
  // per runner, on that pod's loopback. Kubernetes starts a restartPolicy: Always init container as a sidecar (1.29+)
  // and runs the next init container once it has started; the regular containers start after all init containers.
  it('runs stock grafana/k6 with the agent as a sidecar in every runner pod, reached on loopback', () => {
    for (const testRun of testRuns) {
      const spec = obj(testRun.spec);
      const runner = obj(spec.runner);
      expect(runner.image).toMatch(/^grafana\/k6:\d+\.\d+\.\d+$/);
      const init = arr(runner.initContainers).map(obj);
      const at = init.findIndex((c) => c.image === AGENT_IMAGE);
      expect(at, 'an init container runs the agent image').toBeGreaterThanOrEqual(0);
      const agent = init[at]!;
      expect(agent.restartPolicy).toBe('Always');
      const args = arr(agent.args).map(String);
      expect(args[args.indexOf('--host') + 1]).toBe('127.0.0.1');
      const port = args[args.indexOf('--port') + 1]!;
      expect(port).toMatch(/^\d+$/);
      expect(port, "k6's REST API has 6565").not.toBe('6565');
      expect(String(spec.arguments).split(' ')).toEqual(
        expect.arrayContaining(['-e', `LLM_AGENT=http://127.0.0.1:${port}`]),
      );
      // A plain init container after the sidecar ends only once the agent answers, so k6 starts against a ready agent.
      const wait = init.slice(at + 1).find((c) => arr(c.command).join(' ').includes(`http://127.0.0.1:${port}/health`));
      expect(wait?.restartPolicy).toBeUndefined();
      expect(wait?.image).toBe(runner.image);
    }
  });

  it("names its runners' Jobs and Services within Kubernetes' 63 characters", () => {
    for (const testRun of testRuns) {
      const name = String(obj(testRun.metadata).name);
      const parallelism = Number(obj(testRun.spec).parallelism);
      // The operator names runner i's Service <name>-service-<i>; a DNS-1035 label.
      expect(`${name}-service-${parallelism}`).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
    }
  });
});

describe('the split capacity run', () => {
  const [testRun, claim] = manifestDocs('deploy/k6-operator/testrun-split-capacity.yaml');
  const spec = obj(testRun!.spec);
  const runner = obj(spec.runner);
  const env = new Map(arr(runner.env).map(obj).map((e) => [String(e.name), e]));
  const mount = arr(runner.volumeMounts).map(obj).find((m) => m.name === 'results')!;

  it('runs several runners, each writing its CSV and summary into its own folder of a shared claim', () => {
    expect(spec.parallelism).toBeGreaterThan(1);
    expect(String(spec.arguments)).toMatch(/(^| )--out csv( |$)/);
    expect(obj(env.get('K6_CSV_TIME_FORMAT')).value).toBe('unix_milli');
    expect(obj(env.get('RESULTS_DIR')).value).toBe(mount.mountPath);
    expect(obj(env.get('K6_CSV_FILENAME')).value).toBe(`${String(mount.mountPath)}/samples.csv`);
    // The kubelet expands $(RUNNER) from the container's environment: the Job name, <testrun>-<i>, per runner.
    expect(mount.subPathExpr).toBe('capacity-20261126-120000/$(RUNNER)');
    expect(obj(obj(env.get('RUNNER')).valueFrom).fieldRef).toEqual({ fieldPath: "metadata.labels['job-name']" });
    const volume = arr(runner.volumes).map(obj).find((v) => v.name === 'results')!;
    expect(obj(volume.persistentVolumeClaim).claimName).toBe(obj(claim!.metadata).name);
    expect(claim!.kind).toBe('PersistentVolumeClaim');
    expect(obj(claim!.spec).accessModes).toEqual(['ReadWriteMany']);
  });
});
