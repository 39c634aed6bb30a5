// The k6 side of an entry script: loads the plan and prompts in init, runs one request per iteration, runs the monitor, writes the summary. Runs in k6 (bundled).

import exec from 'k6/execution';
import http from 'k6/http';
import { SharedArray } from 'k6/data';
import { applyEnvToPlan } from '../env';
import { buildOptions, plannedRequests, type SuiteOptions } from '../options';
import { resolvePlan, type Cell, type Plan, type PlanInput, type ScriptName } from '../plan';
import { approximatePromptSet, findPrompt, promptText, readPromptSet, requestPrefix, type PreparedPrompt } from '../prompt-set';
import { parsePrometheusText, readServerSnapshot } from '../prometheus';
import { buildStreamingRequest, redactSecret } from '../request';
import { readSummaryData } from '../summary-data';
import { renderTextSummary } from '../summary-text';
import { nowMs, pause } from './clock';
import { recordRequest, recordServerSnapshot } from './metrics';
import { streamRequest } from 'k6-llm-transport';

/** Passed from setup() to every VU: a per-run number that makes prompt prefixes unique across runs. */
export interface SetupData {
  readonly runNonce: number;
}

export interface Suite {
  readonly plan: Plan;
  readonly options: SuiteOptions;
  setup(): SetupData;
  request(data: SetupData): Promise<void>;
  monitor(): Promise<void>;
  handleSummary(data: unknown): Record<string, string>;
}

function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = open(path);
  } catch (e) {
    throw new Error(`${what} "${path}" cannot be read: ${String(e)}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} "${path}" is not valid JSON: ${String(e)}`);
  }
}

/** Loads and validates the plan (init context, once per VU as k6 runs init per VU). */
function loadPlan(script: ScriptName): Plan {
  const file: PlanInput = __ENV.PLAN ? (readJsonFile(__ENV.PLAN, 'PLAN') as PlanInput) : {};
  return resolvePlan(applyEnvToPlan(file, __ENV), script);
}

interface PromptStore {
  readonly tokenizer: string;
  readonly exact: boolean;
  /** The prompt for a context length; SharedArray hands out a copy per access, so only the one needed is copied. */
  get(contextTokens: number): PreparedPrompt;
}

function loadPrompts(plan: Plan): PromptStore {
  const contexts = Array.from(new Set(plan.cells.map((c) => c.contextTokens)));
  const file = plan.prompts.file;
  // Element 0 describes the set; elements 1.. are the prompts in `contexts` order. VUs share one copy
  // of the (large) bodies, and a request copies only the element it reads.
  const shared = new SharedArray('prompts', () => {
    const set = file ? readPromptSet(readJsonFile(file, 'PROMPTS'), file) : approximatePromptSet(plan.target.model, plan.target.api, contexts);
    // Chat prompts are counted with the chat template around them: the other API would be off by its length.
    if (set.api !== plan.target.api) throw new Error(`PROMPTS "${file}" were prepared for the ${set.api} API but the plan uses ${plan.target.api}; run npm run prepare-prompts -- --api ${plan.target.api}`);
    const info = { tokenizer: set.tokenizer, exact: set.exact };
    return [info, ...contexts.map((c) => findPrompt(set, c))];
  });
  const info = shared[0] as { tokenizer: string; exact: boolean };
  return {
    tokenizer: info.tokenizer,
    exact: info.exact,
    get(contextTokens: number): PreparedPrompt {
      return shared[contexts.indexOf(contextTokens) + 1] as PreparedPrompt;
    },
  };
}

/** Creates the suite for one entry script. Must be called in the init context. */
export function createSuite(script: ScriptName): Suite {
  const plan = loadPlan(script);
  const prompts = loadPrompts(plan);
  const options = buildOptions(plan);
  const cellsById = new Map<string, Cell>(plan.cells.map((c) => [c.id, c]));
  // The key is read from the environment only; it goes into a request header and nowhere else.
  const apiKey = __ENV.API_KEY || null;
  const resultsDir = (__ENV.RESULTS_DIR || 'results/latest').replace(/\/+$/, '');

  return {
    plan,
    options,
    setup(): SetupData {
      if (!prompts.exact) console.warn(`prompts are approximate (${prompts.tokenizer}); run npm run prepare-prompts for exact lengths`);
      return { runNonce: Math.floor(Math.random() * 1_000_000) };
    },

    async request(data: SetupData): Promise<void> {
      const cell = cellsById.get(exec.scenario.name);
      if (!cell) {
        exec.test.abort(`scenario "${exec.scenario.name}" is not a cell of the plan`);
        return;
      }
      const prompt = prompts.get(cell.contextTokens);
      const prefix = requestPrefix(plan.prompts.mode, data.runNonce, exec.vu.idInTest, exec.vu.iterationInInstance);
      const spec = buildStreamingRequest(plan.target, { prompt: promptText(prompt, prefix), maxTokens: cell.outputTokens }, apiKey);
      const record = await streamRequest(
        spec,
        { requestedInputTokens: cell.contextTokens, requestedOutputTokens: cell.outputTokens },
        plan.target,
        plan.target.api,
      );
      if (record.outcome === 'errored' && exec.vu.iterationInScenario === 0) {
        console.warn(`${cell.id}: request failed (${record.errorKind}): ${redactSecret(record.errorMessage, apiKey).slice(0, 200)}`);
      }
      recordRequest(record, apiKey);
    },

    async monitor(): Promise<void> {
      const url = plan.target.metricsUrl;
      if (!url) return;
      const expected = plannedRequests(plan);
      const endMs = plan.totalSeconds * 1000;
      const intervalMs = plan.monitor.intervalSeconds * 1000;
      // Ends when every planned request has finished (iterations are counted instance-wide) or the last slot is over.
      while (exec.instance.iterationsCompleted + exec.instance.iterationsInterrupted < expected && nowMs() < endMs) {
        const started = nowMs();
        let snapshot = null;
        try {
          const res = await http.asyncRequest('GET', url, null, { tags: { name: 'metrics' }, timeout: '10s' });
          if (res.status === 200 && typeof res.body === 'string') {
            let text = res.body;
            if (plan.target.powerMetricsUrl) {
              const power = await http.asyncRequest('GET', plan.target.powerMetricsUrl, null, { tags: { name: 'power-metrics' }, timeout: '10s' });
              if (power.status === 200 && typeof power.body === 'string') text += '\n' + power.body;
            }
            snapshot = readServerSnapshot(parsePrometheusText(text));
          }
        } catch {
          // A failing metrics endpoint must not end the monitor: the scrape is recorded as failed.
        }
        recordServerSnapshot(snapshot);
        await pause(intervalMs - (nowMs() - started));
      }
    },

    handleSummary(raw: unknown): Record<string, string> {
      const data = readSummaryData(raw, 'handleSummary data');
      return {
        [`${resultsDir}/summary.json`]: JSON.stringify(data, null, 1),
        [`${resultsDir}/plan.json`]: JSON.stringify(plan, null, 1),
        stdout: renderTextSummary(data, plan, resultsDir),
      };
    },
  };
}
