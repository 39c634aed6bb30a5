// The simulated OpenAI-compatible inference server. Runs in Node.
// HTTP routes, request admission, and wiring of scheduler, metrics and ground truth.

import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { BatchRequest, FinishedEvent } from './batcher';
import { embedResponseBody, engineTexts, parseEmbedRequest, type EmbedRoute } from './embed';
import { parseFaultSpec, pickFaults, type Fault } from './faults';
import { GroundTruthStore, epochMs, type GroundTruthRecord } from './ground-truth';
import { ApiError } from './api-error';
import {
  contextLengthError,
  parseGenerationRequest,
  parseJsonBody,
  parseTokenizeRequest,
  type GenerationRequest,
  type TokenizeRequest,
} from './http';
import { admittedMaxTokens, arrivalRecord, streamIdentity, type Admitted } from './admission';
import { groundTruthRoute, stallRoute } from './debug-routes';
import { clientRequestId, headerFaults, readBody, sendJson, sendJsonErrorFault } from './http-exchange';
import { EmbedAnswer, type InFlight } from './in-flight';
import { baseUrl, listen } from './listen';
import { resolveNoise, type NoiseSettings } from './noise';
import { resolveProfile, type Flavour, type Profile } from './profiles';
import { RequestOutput } from './request-output';
import { BatcherScheduler, FixedScheduler, type Scheduler, type TokenSink } from './scheduler';
import { createSimMetrics, type SimMetrics } from './server-metrics';
import { checkOptions, type SimOptions } from './server-options';
import type { Endpoint } from './sse';
import { outputTokenIds, planOutput, WORDS } from './text';
import { chainedBlockHashes } from './kv-cache';
import { TokenizePool } from './tokenize-pool';
import { renderChatMl } from '../lib/chat-template';

export type { GroundTruthRecord } from './ground-truth';

/** Typed events for progress displays and tests. */
export interface SimEvents {
  request: [{ requestId: string; promptTokens: number; contentTokens: number }];
  finished: [FinishedEvent & { requestId: string }];
}

export interface SimServer {
  /** http://127.0.0.1:<port>/v1 (https:// with tls) */
  readonly url: string;
  readonly port: number;
  readonly profile: Profile;
  readonly flavour: Flavour;
  /** The step-time noise in effect, with its seed; null = exact modelled step times (and always in fixed timing). */
  readonly noise: NoiseSettings | null;
  readonly events: EventEmitter<SimEvents>;
  /** Snapshot of ground-truth records (empty unless groundTruth was enabled). */
  groundTruth(): GroundTruthRecord[];
  clearGroundTruth(): void;
  /** Resolves once the tokenizer workers have loaded (requests wait for them anyway). */
  tokenizerReady(): Promise<void>;
  close(): Promise<void>;
}


/** Starts a simulator; resolves once its tokenizer workers are loaded and its port listens. */
export async function startSim(options: SimOptions = {}): Promise<SimServer> {
  const sim = new Sim(options);
  // Like a real server, listen only once the tokenizer is loaded, so the first request is not slow.
  await sim.tokenizerLoaded();
  const { server, port } = await listen(options, (req, res) => sim.handle(req, res));
  let closing: Promise<void> | null = null;
  return {
    url: baseUrl(options, port),
    port,
    profile: sim.profile,
    flavour: sim.flavour,
    noise: sim.noise,
    events: sim.events,
    groundTruth: () => sim.truth.all(),
    clearGroundTruth: () => sim.truth.clear(),
    tokenizerReady: () => sim.pool.ready(),
    close: () => (closing ??= sim.close(server)),
  };
}

/**
 * What one simulator shares across its requests (profile, tokenizer pool, scheduler, metrics, ground truth,
 * the responses in flight) and the HTTP handlers that use it. Constructing it starts the tokenizer workers.
 */
class Sim {
  readonly profile: Profile;
  readonly flavour: Flavour;
  readonly pool: TokenizePool;
  readonly truth = new GroundTruthStore();
  readonly events = new EventEmitter<SimEvents>();
  private readonly streamInterval: number;
  private readonly serverFaults: readonly Fault[];
  /** The batcher's scheduler; null in fixed timing. */
  private readonly engineScheduler: BatcherScheduler | null;
  private readonly scheduler: Scheduler;
  /** Block size of the prompts' block hashes; 0 computes none. */
  private readonly hashBlockSize: number;
  /** Token id of each generated word (sim/text.ts WORDS), for hashing responses; loaded with the tokenizer. */
  private wordIds: Uint32Array = new Uint32Array(0);
  private readonly metrics: SimMetrics;
  /** Responses in flight, by internal (scheduler) id: generations, and embed answers waiting for their step. */
  private readonly outputs = new Map<string, InFlight>();
  /** Client-visible request ids, by internal id, for the finished event. */
  private readonly requestIds = new Map<string, string>();
  /** Requests in their per-request overhead: waiting, though not yet in the scheduler's queue. */
  private pendingOverhead = 0;
  private nextInternal = 1;
  private readonly startedEpochMs: number;

  constructor(private readonly options: SimOptions) {
    this.profile = resolveProfile(options.profile);
    this.flavour = options.flavour ?? this.profile.flavour;
    this.streamInterval = Math.max(1, Math.round(options.streamInterval ?? this.profile.streamInterval));
    this.serverFaults =
      typeof options.faults === 'string' ? parseFaultSpec(options.faults) : [...(options.faults ?? [])];
    checkOptions(options);
    this.pool = new TokenizePool(options.tokenizerWorkers ?? 2);
    const sink = this.tokenSink();
    const prefixCache = options.prefixCache ?? true;
    const noise = options.fixed ? null : resolveNoise(this.profile.noise, options.noise, options.noiseSeed);
    this.engineScheduler = options.fixed
      ? null
      : new BatcherScheduler(this.profile, sink, undefined, { prefixCaching: prefixCache, noise: noise ?? undefined });
    // Block hashes are only worth computing when the batcher has a prefix cache to look them up in.
    this.hashBlockSize = this.engineScheduler && prefixCache ? this.profile.scheduler.blockSize : 0;
    this.scheduler =
      this.engineScheduler ??
      new FixedScheduler(options.fixed!.ttftMs, options.fixed!.itlMs, sink, this.profile.powerIdleWatts);
    this.metrics = this.createMetrics(this.engineScheduler !== null && prefixCache);
    this.startedEpochMs = epochMs();
  }

  /** The batcher's step-time noise, or null (exact step times; always in fixed timing). */
  get noise(): NoiseSettings | null {
    return this.engineScheduler?.batcher.noiseSettings ?? null;
  }

  /** Resolves once the tokenizer workers have loaded; if they cannot, stops them and rejects. */
  async tokenizerLoaded(): Promise<void> {
    try {
      await this.pool.ready();
      if (this.hashBlockSize > 0) this.wordIds = await this.pool.wordIds(WORDS);
    } catch (e) {
      await this.pool.close();
      throw new Error(`tokenizer workers failed to start: ${(e as Error).message}`);
    }
  }

  /** Stops the scheduler and the responses in flight, then the server and the tokenizer workers. */
  async close(server: HttpServer | HttpsServer): Promise<void> {
    this.scheduler.close();
    for (const o of this.outputs.values()) o.clientGone();
    this.outputs.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await this.pool.close();
  }

  /** The scheduler's tokens and finishes go to the responses in flight, the metrics and the finished event. */
  private tokenSink(): TokenSink {
    return {
      onTokens: (tokens) => {
        for (const t of tokens) this.outputs.get(t.id)?.onToken(t);
        this.metrics.onTokens(tokens, (id: string) => this.outputs.get(id)?.promptTokens ?? 0);
        for (const t of tokens) if (t.finished) this.outputs.delete(t.id);
      },
      onFinished: (ev) => {
        this.metrics.onFinished(ev);
        this.outputs.delete(ev.id);
        this.events.emit('finished', { ...ev, requestId: this.requestIds.get(ev.id) ?? ev.id });
        this.requestIds.delete(ev.id);
      },
      onPreemptions: (n) => {
        this.metrics.onPreemptions(n);
      },
      onPrefixCache: (queryTokens, hitTokens) => {
        this.metrics.onPrefixCache(queryTokens, hitTokens);
      },
    };
  }

  /** The gauges read the scheduler at each scrape; requests still in their per-request overhead count as waiting. */
  private createMetrics(prefixCaching: boolean): SimMetrics {
    const { profile } = this;
    return createSimMetrics(
      this.flavour, profile.model,
      {
        running: () => this.scheduler.running(),
        waiting: () => this.waitingRequests(),
        kvUsage: () => this.scheduler.kvUsage(),
        powerWatts: () => this.scheduler.powerWatts(),
      },
      {
        blockSize: profile.scheduler.blockSize,
        numGpuBlocks:
          this.engineScheduler?.batcher.kv.totalBlocks ??
          Math.floor(profile.scheduler.kvCapacityTokens / profile.scheduler.blockSize),
        prefixCaching,
      },
      { count: profile.hardware.tensorParallel, name: profile.gpuName },
    );
  }

  /**
   * The request listener: an error thrown anywhere becomes the OpenAI error body, unless the response already started.
   */
  handle(req: IncomingMessage, res: ServerResponse): void {
    this.route(req, res).catch((e: unknown) => {
      const err = e instanceof ApiError ? e : new ApiError(500, `Internal error: ${(e as Error).message}`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      sendJson(res, err.status, JSON.parse(err.body()) as unknown);
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const method = req.method ?? 'GET';
    if (method === 'POST' && path === '/v1/chat/completions') return this.handleGeneration(req, res, 'chat');
    if (method === 'POST' && path === '/v1/completions') return this.handleGeneration(req, res, 'completion');
    if (method === 'POST' && path === '/v1/responses') return this.handleGeneration(req, res, 'responses');
    if (method === 'POST' && path === '/v1/messages') return this.handleGeneration(req, res, 'messages');
    if (method === 'POST' && path === '/v1/embeddings') return this.handleEmbed(req, res, 'embeddings');
    // llama.cpp's rerank paths; vLLM's and Jina's are /v1/rerank.
    if (method === 'POST' && EMBED_RERANK_PATHS.includes(path)) return this.handleEmbed(req, res, 'rerank');
    if (method === 'POST' && path === '/tokenize') return this.handleTokenize(req, res);
    if (method === 'POST' && path === '/v1/tokenize') {
      // Every /v1/* path needs the key (sim/README.md), as generation does; the root /tokenize is vLLM's open one.
      this.checkAuth(req);
      return this.handleTokenize(req, res);
    }
    if (method === 'GET' && path === '/health') {
      res.writeHead(200).end();
      return;
    }
    if (method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(this.metrics.render());
      return;
    }
    if (method === 'GET' && path === '/v1/models') return this.listModels(req, res);
    const debug = this.options.groundTruth ?? false;
    if (path === '/debug/ground-truth' && groundTruthRoute(debug, this.truth, method, res)) return;
    if (path === '/debug/stall' && stallRoute(debug, this.scheduler, method, req, res)) return;
    throw new ApiError(404, `Not found: ${method} ${path}`);
  }

  /**
   * POST /v1/{chat/completions,completions,responses,messages}: admission, then the response opens and the scheduler
   * gets it.
   */
  private async handleGeneration(req: IncomingMessage, res: ServerResponse, endpoint: Endpoint): Promise<void> {
    const arrivalMs = performance.now();
    // A request stream is destroyed once read; the response's close tells that the client went away.
    let clientGone = false;
    res.once('close', () => {
      clientGone = true;
    });
    const g = await this.readGenerationRequest(req, endpoint);
    const faults = pickFaults(this.serverFaults, headerFaults(req), Math.random);
    const statusFault = faults.find((f) => f.kind === 'error-status');
    if (statusFault) throw new ApiError(statusFault.status, `Injected fault: error-status ${statusFault.status}.`);
    if (faults.some((f) => f.kind === 'json-error')) {
      sendJsonErrorFault(res);
      return;
    }
    // Hashed below, with the response: hashing the prompt alone now would be done twice.
    const prompt = g.messages
      ? await this.pool.tokenizeChat(g.messages, 0)
      : await this.pool.tokenizeText(g.prompt!, 0);
    if (clientGone) return;
    const maxTokens = admittedMaxTokens(this.profile, this.engineScheduler?.batcher ?? null, g.maxTokens, prompt.count);
    this.refuseWhenQueueFull(res);
    const seed = g.seed ?? randomBytes(4).readUInt32LE(0);
    const plan = planOutput({ seed, maxTokens, minTokens: g.minTokens, ignoreEos: g.ignoreEos, stop: g.stop });
    const requestId = clientRequestId(req) ?? randomUUID();
    const admitted: Admitted = { g, faults, prompt, seed, plan, arrivalMs, requestId, id: `${this.nextInternal++}` };
    const output = this.openOutput(res, admitted);
    this.submitAfterOverhead(res, output, admitted);
  }

  /**
   * POST /v1/embeddings and /v1/rerank: prefill-only work on the same batcher as generation. The batch's tokens
   * (rerank: the query beside each document) go in as one request of one output token, whose token marks the end
   * of its prefill; then the whole answer is sent at once.
   */
  private async handleEmbed(req: IncomingMessage, res: ServerResponse, route: EmbedRoute): Promise<void> {
    const arrivalMs = performance.now();
    this.checkAuth(req);
    const r = parseEmbedRequest(parseJsonBody(await readBody(req)), route);
    this.checkModel(r.model);
    const counts = await Promise.all(engineTexts(r).map((t) => this.pool.countText(t)));
    const longest = Math.max(...counts);
    if (longest >= this.profile.maxModelLen) throw contextLengthError(this.profile.maxModelLen, longest, 1);
    // Each input must fit the window; the batch, which the batcher runs as one prefill, only the KV cache.
    const promptTokens = counts.reduce((a, b) => a + b, 0);
    if (this.engineScheduler && !this.engineScheduler.batcher.fitsCapacity(promptTokens + 1)) {
      const holds = this.profile.scheduler.kvCapacityTokens;
      throw new ApiError(400, `The batch needs ${promptTokens} tokens of KV cache; the cache holds ${holds}.`, 'input');
    }
    this.refuseWhenQueueFull(res);
    const id = `${this.nextInternal++}`;
    const requestId = clientRequestId(req) ?? randomUUID();
    res.setHeader('x-request-id', requestId);
    const record = () => {
      if (!this.options.groundTruth) return;
      this.truth.addEmbed({
        requestId, route, items: r.texts.length, promptTokens, arrivalEpochMs: performance.timeOrigin + arrivalMs,
        endEpochMs: epochMs(),
      });
    };
    const answer = new EmbedAnswer(res, promptTokens, () => embedResponseBody(r, route, promptTokens), record);
    this.outputs.set(id, answer);
    res.on('close', () => {
      if (answer.done) return;
      answer.clientGone();
      this.scheduler.abort(id);
    });
    const queuedMs = this.queuedAt(arrivalMs);
    const engineReq: BatchRequest = {
      id, promptTokens, outputTokens: 1, finishReason: 'length', arrivalMs, queuedMs,
      lateMs: Math.max(0, performance.now() - queuedMs),
    };
    this.submitAt(queuedMs, () => {
      if (!answer.done) this.scheduler.submit(engineReq);
    });
  }

  /** The parsed body of an authorised request for this server's model. */
  private async readGenerationRequest(req: IncomingMessage, endpoint: Endpoint): Promise<GenerationRequest> {
    this.checkAuth(req);
    const g = parseGenerationRequest(parseJsonBody(await readBody(req)), endpoint);
    this.checkModel(g.model);
    return g;
  }

  /**
   * Starts an admitted request's response (SSE headers at once when streaming) and registers it for the scheduler's
   * tokens.
   */
  private openOutput(res: ServerResponse, a: Admitted): RequestOutput {
    const { g, plan, requestId } = a;
    const output = new RequestOutput({
      res, identity: streamIdentity(g, this.flavour), stream: g.stream, includeUsage: g.includeUsage,
      promptTokens: a.prompt.count, contentTokens: plan.contentTokens,
      reasoningTokens: this.options.reasoningTokens ?? 0, seed: a.seed,
      streamInterval: this.flavour === 'sglang' ? this.streamInterval : 1, faults: a.faults,
      record: this.recordArrival(a),
      onCut: () => this.scheduler.abort(a.id),
    });
    res.setHeader('x-request-id', requestId);
    if (g.stream) {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive',
      });
      res.flushHeaders();
    }
    this.outputs.set(a.id, output);
    this.requestIds.set(a.id, requestId);
    this.events.emit('request', { requestId, promptTokens: a.prompt.count, contentTokens: plan.contentTokens });
    return output;
  }

  /** The request's ground-truth record, when recording; RequestOutput fills in its tokens and end. */
  private recordArrival(a: Admitted): GroundTruthRecord | null {
    if (!this.options.groundTruth) return null;
    const record = arrivalRecord(a);
    this.truth.add(record);
    return record;
  }

  /** Hands the request to the scheduler once its per-request overhead has passed, unless the client left first. */
  private submitAfterOverhead(res: ServerResponse, output: RequestOutput, a: Admitted): void {
    let submitted = false;
    res.on('close', () => {
      if (output.done) return;
      output.clientGone();
      if (submitted) this.scheduler.abort(a.id);
      else this.outputs.delete(a.id);
    });
    // The modelled per-request overhead (o_req) stands for all the server's own work before scheduling, its
    // tokenizer's included: the simulator's tokenizer (about 1 s per 300K tokens, slower than a real server's)
    // must not add to it. So the request queues at arrival + o_req even when counting its tokens took longer; an
    // idle batcher starts its step back at that time (lateMs), a busy one admits it at its next step.
    const queuedMs = this.queuedAt(a.arrivalMs);
    const engineReq: BatchRequest = {
      id: a.id, promptTokens: a.prompt.count, outputTokens: Math.max(1, a.plan.contentTokens),
      finishReason: a.plan.finishReason, arrivalMs: a.arrivalMs, queuedMs, blockHashes: this.blockHashesOf(a),
      lateMs: Math.max(0, performance.now() - queuedMs),
    };
    this.submitAt(queuedMs, () => {
      if (output.done) return;
      submitted = true;
      this.scheduler.submit(engineReq);
    });
  }

  /** When a request arriving at arrivalMs joins the scheduler's queue: after its per-request overhead (o_req). */
  private queuedAt(arrivalMs: number): number {
    return this.options.fixed ? arrivalMs : arrivalMs + this.profile.hardware.requestOverheadMs;
  }

  /**
   * Runs submit at queuedMs (performance.now() time), counting the request as waiting meanwhile. The per-request
   * overhead (o_req) runs beside the batcher, never holding up other requests.
   */
  private submitAt(queuedMs: number, submit: () => void): void {
    const delay = queuedMs - performance.now();
    if (delay <= 0) return submit();
    this.pendingOverhead++;
    setTimeout(() => {
      this.pendingOverhead--;
      submit();
    }, delay);
  }

  /** Refuses with 429 and Retry-After once the queue limit (maxQueue) is reached. */
  private refuseWhenQueueFull(res: ServerResponse): void {
    if (this.options.maxQueue === undefined || this.waitingRequests() < this.options.maxQueue) return;
    res.setHeader('retry-after', '1');
    throw new ApiError(429, `The server queue is full (${this.options.maxQueue} waiting requests); retry later.`);
  }

  /**
   * The chained hashes of a request's prompt followed by its response, for the prefix cache; undefined without one.
   * vLLM caches a block once its tokens' KV is computed, generated tokens included, so the next turn of a
   * conversation, which sends the response back as history, hits the blocks of the response too.
   */
  private blockHashesOf(a: Admitted): number[] | undefined {
    if (this.hashBlockSize === 0) return undefined;
    const response = outputTokenIds(a.seed, a.plan.contentTokens, this.wordIds);
    return chainedBlockHashes([...a.prompt.ids, response], this.hashBlockSize);
  }

  /** POST /tokenize and /v1/tokenize, in vLLM's shape. */
  private async handleTokenize(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t = parseTokenizeRequest(parseJsonBody(await readBody(req)));
    if (t.model !== null) this.checkModel(t.model);
    const text = tokenizeInput(t);
    // The count goes through the cached path (warming it for generation requests); the ids as vLLM returns them.
    const [count, tokens] = await Promise.all([this.pool.countText(text), this.pool.encode(text)]);
    sendJson(res, 200, { count, max_model_len: this.profile.maxModelLen, tokens });
  }

  private listModels(req: IncomingMessage, res: ServerResponse): void {
    this.checkAuth(req);
    const { model, maxModelLen } = this.profile;
    sendJson(res, 200, {
      object: 'list',
      data: [{
        id: model, object: 'model', created: Math.floor(this.startedEpochMs / 1000), owned_by: this.flavour,
        root: model, parent: null, max_model_len: maxModelLen, permission: [],
      }],
    });
  }

  /** With an API key set, the generation endpoints and /v1/models want it as the bearer token. */
  private checkAuth(req: IncomingMessage): void {
    if (this.options.apiKey === undefined) return;
    const h = req.headers.authorization;
    if (h !== `Bearer ${this.options.apiKey}`)
      throw new ApiError(
        401, h ? 'Invalid API key.' : 'Missing API key: send Authorization: Bearer <key>.', null, 'AuthenticationError',
      );
  }

  /** Clients may name the model as served or the profile. */
  private checkModel(model: string): void {
    if (model !== this.profile.model && model !== this.profile.name)
      throw new ApiError(404, `The model \`${model}\` does not exist.`, 'model');
  }

  /**
   * Waiting requests as the metrics and the queue limit count them: the scheduler's queue and those still in their
   * overhead.
   */
  private waitingRequests(): number {
    return this.scheduler.waiting() + this.pendingOverhead;
  }
}

/** llama.cpp's rerank paths (vLLM's and Jina's is the first). */
const EMBED_RERANK_PATHS: readonly string[] = ['/v1/rerank', '/rerank', '/v1/reranking', '/reranking'];

/**
 * The text /tokenize counts: the prompt, or the messages in the chat template, ending before the assistant's turn
 * unless asked for it.
 */
function tokenizeInput(t: TokenizeRequest): string {
  if (!t.messages) return t.prompt!;
  const text = renderChatMl(t.messages);
  return t.addGenerationPrompt ? text : text.slice(0, text.length - '<|im_start|>assistant\n'.length);
}
