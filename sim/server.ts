// The simulated OpenAI-compatible inference server. Runs in Node.
// HTTP routes, request admission, and wiring of scheduler, metrics and ground truth.

import { randomBytes, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type RequestListener, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext } from 'node:tls';
import type { EngineRequest, FinishedEvent, TokenEvent } from './engine';
import { embedResponseBody, engineTexts, parseEmbedRequest, type EmbedRoute } from './embed';
import { FAULT_HEADER, parseFaultSpec, pickFaults, type Fault } from './faults';
import { GroundTruthStore, epochMs, type GroundTruthRecord } from './ground-truth';
import { readRequestBody } from '../node/request-body';
import {
  ApiError,
  contextLengthError,
  parseGenerationRequest,
  parseJsonBody,
  parseTokenizeRequest,
  type GenerationRequest,
  type TokenizeRequest,
} from './http';
import { resolveNoise, type NoiseRequest, type NoiseSettings } from './noise';
import { resolveProfile, type Flavour, type Profile, type ProfileOverrides } from './profiles';
import { RequestOutput } from './request-output';
import { EngineScheduler, FixedScheduler, type Scheduler, type TokenSink } from './scheduler';
import { createSimMetrics, type SimMetrics } from './server-metrics';
import type { Endpoint, StreamIdentity } from './sse';
import { outputTokenIds, planOutput, WORDS, type OutputPlan } from './text';
import { chainedBlockHashes } from './kv-cache';
import { TokenizePool, type PromptTokens } from './tokenize-pool';
import { renderChatMl } from '../lib/chat-template';

export type { GroundTruthRecord } from './ground-truth';

export interface FixedTiming {
  /** Time to first token from request arrival, ms. */
  readonly ttftMs: number;
  /** Gap between tokens, ms. */
  readonly itlMs: number;
}

export interface SimOptions {
  /** Built-in profile name or letter, path to a JSON profile, a Profile, or overrides of a base profile; default profile A. */
  readonly profile?: string | Profile | ProfileOverrides;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** Waiting requests beyond this are refused with 429 and Retry-After. */
  readonly maxQueue?: number;
  /** Response and metric style; default: the profile's. */
  readonly flavour?: Flavour;
  /** Record per-token emission times (GET /debug/ground-truth, groundTruth()). */
  readonly groundTruth?: boolean;
  /** Server-wide faults (each with its probability), as parsed faults or a spec string. */
  readonly faults?: readonly Fault[] | string;
  /** Fixed timing instead of the performance model. */
  readonly fixed?: FixedTiming;
  /** Tokens per SSE chunk (SGLang stream interval); default: the profile's (1). */
  readonly streamInterval?: number;
  /**
   * A reasoning model: every answer thinks for this many tokens (at most its max_tokens) before its content, on each
   * API as that API streams thinking; usage counts them among the output tokens and says how many. Default 0.
   */
  readonly reasoningTokens?: number;
  /** Tokenizer worker threads (default 2). */
  readonly tokenizerWorkers?: number;
  /** Automatic prefix caching (default true, as vLLM v1); false = vLLM's --no-enable-prefix-caching. No effect in fixed timing. */
  readonly prefixCache?: boolean;
  /** Serve HTTPS with this PEM key and certificate (chain) instead of plain HTTP. */
  readonly tls?: SimTls;
  /**
   * Step-time noise (sim/noise.ts): true = the profile's noise model or the defaults, an object = those fields
   * changed, false = off even if the profile has noise. Default: the profile's (off in every built-in profile).
   * Not with fixed timing.
   */
  readonly noise?: NoiseRequest;
  /** Seed of the noise draws (turns noise on); default a random one, shown in `noise.seed`. */
  readonly noiseSeed?: number;
}

export interface SimTls {
  /** PEM private key. */
  readonly key: string | Buffer;
  /** PEM certificate, optionally followed by its intermediates. */
  readonly cert: string | Buffer;
}

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

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The longest stall POST /debug/stall accepts, ms: a hiccup, not a way to hang the server for good. */
const MAX_STALL_MS = 600_000;

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

/** Throws on options no server can run with. */
function checkOptions(options: SimOptions): void {
  if (options.fixed && (!(options.fixed.ttftMs >= 0) || !(options.fixed.itlMs >= 0)))
    throw new Error('fixed timing needs ttftMs >= 0 and itlMs >= 0');
  if (options.maxQueue !== undefined && !(options.maxQueue >= 0)) throw new Error('maxQueue must be >= 0');
  if (options.reasoningTokens !== undefined && !(Number.isInteger(options.reasoningTokens) && options.reasoningTokens >= 0))
    throw new Error('reasoningTokens must be a whole number >= 0');
  if (options.fixed && ((options.noise !== undefined && options.noise !== false) || options.noiseSeed !== undefined))
    throw new Error('noise needs the performance model: fixed timing has no steps to jitter');
  if (options.tls) {
    // Bad PEM fails here, before any worker starts.
    try {
      createSecureContext({ key: options.tls.key, cert: options.tls.cert });
    } catch (e) {
      throw new Error(`tls: ${(e as Error).message}`);
    }
  }
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
  /** The physics engine's scheduler; null in fixed timing. */
  private readonly engineScheduler: EngineScheduler | null;
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
    this.serverFaults = typeof options.faults === 'string' ? parseFaultSpec(options.faults) : [...(options.faults ?? [])];
    checkOptions(options);
    this.pool = new TokenizePool(options.tokenizerWorkers ?? 2);
    const sink = this.tokenSink();
    const prefixCache = options.prefixCache ?? true;
    const noise = options.fixed ? null : resolveNoise(this.profile.noise, options.noise, options.noiseSeed);
    this.engineScheduler = options.fixed
      ? null
      : new EngineScheduler(this.profile, sink, undefined, { prefixCaching: prefixCache, noise: noise ?? undefined });
    // Block hashes are only worth computing when the engine has a prefix cache to look them up in.
    this.hashBlockSize = this.engineScheduler && prefixCache ? this.profile.scheduler.blockSize : 0;
    this.scheduler =
      this.engineScheduler ??
      new FixedScheduler(options.fixed!.ttftMs, options.fixed!.itlMs, sink, this.profile.powerIdleWatts);
    this.metrics = this.createMetrics(this.engineScheduler !== null && prefixCache);
    this.startedEpochMs = epochMs();
  }

  /** The engine's step-time noise, or null (exact step times; always in fixed timing). */
  get noise(): NoiseSettings | null {
    return this.engineScheduler?.engine.noiseSettings ?? null;
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
          this.engineScheduler?.engine.kv.totalBlocks ??
          Math.floor(profile.scheduler.kvCapacityTokens / profile.scheduler.blockSize),
        prefixCaching,
      },
      { count: profile.hardware.tensorParallel, name: profile.gpuName },
    );
  }

  /** The request listener: an error thrown anywhere becomes the OpenAI error body, unless the response already started. */
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
    if (path === '/debug/ground-truth' && this.groundTruthRoute(method, res)) return;
    if (path === '/debug/stall' && this.stallRoute(method, req, res)) return;
    throw new ApiError(404, `Not found: ${method} ${path}`);
  }

  /** POST /v1/{chat/completions,completions,responses,messages}: admission, then the response opens and the scheduler gets it. */
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
    const prompt = g.messages ? await this.pool.tokenizeChat(g.messages, 0) : await this.pool.tokenizeText(g.prompt!, 0);
    if (clientGone) return;
    const maxTokens = this.admit(res, g.maxTokens, prompt.count);
    const seed = g.seed ?? randomBytes(4).readUInt32LE(0);
    const plan = planOutput({ seed, maxTokens, minTokens: g.minTokens, ignoreEos: g.ignoreEos, stop: g.stop });
    const requestId = clientRequestId(req) ?? randomUUID();
    const admitted: Admitted = { g, faults, prompt, seed, plan, arrivalMs, requestId, id: `${this.nextInternal++}` };
    const output = this.openOutput(res, admitted);
    this.submitAfterOverhead(res, output, admitted);
  }

  /**
   * POST /v1/embeddings and /v1/rerank: prefill-only work on the same engine as generation. The batch's tokens (rerank:
   * the query beside each document) go in as one request of one output token, whose token marks the end of its
   * prefill; then the whole answer is sent at once.
   */
  private async handleEmbed(req: IncomingMessage, res: ServerResponse, route: EmbedRoute): Promise<void> {
    const arrivalMs = performance.now();
    this.checkAuth(req);
    const r = parseEmbedRequest(parseJsonBody(await readBody(req)), route);
    this.checkModel(r.model);
    const counts = await Promise.all(engineTexts(r).map((t) => this.pool.countText(t)));
    const longest = Math.max(...counts);
    if (longest >= this.profile.maxModelLen) throw contextLengthError(this.profile.maxModelLen, longest, 1);
    // Each input must fit the window; the batch, which the engine runs as one prefill, only the KV cache.
    const promptTokens = counts.reduce((a, b) => a + b, 0);
    if (this.engineScheduler && !this.engineScheduler.engine.fitsCapacity(promptTokens + 1)) {
      const holds = this.profile.scheduler.kvCapacityTokens;
      throw new ApiError(400, `The batch needs ${promptTokens} tokens of KV cache; the cache holds ${holds}.`, 'input');
    }
    if (this.options.maxQueue !== undefined && this.waitingRequests() >= this.options.maxQueue) {
      res.setHeader('retry-after', '1');
      throw new ApiError(429, `The server queue is full (${this.options.maxQueue} waiting requests); retry later.`);
    }
    const id = `${this.nextInternal++}`;
    const answer = new EmbedAnswer(res, promptTokens, () => embedResponseBody(r, route, promptTokens));
    this.outputs.set(id, answer);
    res.on('close', () => {
      if (answer.done) return;
      answer.clientGone();
      this.scheduler.abort(id);
    });
    const queuedMs = this.options.fixed ? arrivalMs : arrivalMs + this.profile.hardware.requestOverheadMs;
    const engineReq: EngineRequest = {
      id, promptTokens, outputTokens: 1, finishReason: 'length', arrivalMs, queuedMs,
      lateMs: Math.max(0, performance.now() - queuedMs),
    };
    const delay = queuedMs - performance.now();
    if (delay <= 0) this.scheduler.submit(engineReq);
    else {
      this.pendingOverhead++;
      setTimeout(() => {
        this.pendingOverhead--;
        if (!answer.done) this.scheduler.submit(engineReq);
      }, delay);
    }
  }

  /** The parsed body of an authorised request for this server's model. */
  private async readGenerationRequest(req: IncomingMessage, endpoint: Endpoint): Promise<GenerationRequest> {
    this.checkAuth(req);
    const g = parseGenerationRequest(parseJsonBody(await readBody(req)), endpoint);
    this.checkModel(g.model);
    return g;
  }

  /** The max_tokens a request runs with; throws if it overflows the context window or the KV cache, or the queue is full. */
  private admit(res: ServerResponse, requested: number | null, promptTokens: number): number {
    const maxTokens = requested ?? this.profile.maxModelLen - promptTokens;
    if (maxTokens < 1 || promptTokens + maxTokens > this.profile.maxModelLen)
      throw contextLengthError(this.profile.maxModelLen, promptTokens, Math.max(maxTokens, 1));
    if (this.engineScheduler && !this.engineScheduler.engine.fitsCapacity(promptTokens + maxTokens)) {
      throw new ApiError(
        400,
        `The request needs ${promptTokens + maxTokens} tokens of KV cache but the cache holds ${this.profile.scheduler.kvCapacityTokens}.`,
        'max_tokens',
      );
    }
    if (this.options.maxQueue !== undefined && this.waitingRequests() >= this.options.maxQueue) {
      res.setHeader('retry-after', '1');
      throw new ApiError(429, `The server queue is full (${this.options.maxQueue} waiting requests); retry later.`);
    }
    return maxTokens;
  }

  /** Starts an admitted request's response (SSE headers at once when streaming) and registers it for the scheduler's tokens. */
  private openOutput(res: ServerResponse, a: Admitted): RequestOutput {
    const { g, plan, requestId } = a;
    const output = new RequestOutput({
      res, identity: streamIdentity(g, this.flavour), stream: g.stream, includeUsage: g.includeUsage,
      promptTokens: a.prompt.count, contentTokens: plan.contentTokens, reasoningTokens: this.options.reasoningTokens ?? 0,
      seed: a.seed,
      streamInterval: this.flavour === 'sglang' ? this.streamInterval : 1, faults: a.faults, record: this.recordArrival(a),
      onCut: () => this.scheduler.abort(a.id),
    });
    res.setHeader('x-request-id', requestId);
    if (g.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
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
    const record: GroundTruthRecord = {
      requestId: a.requestId, endpoint: a.g.endpoint, stream: a.g.stream, promptTokens: a.prompt.count,
      completionTokens: a.plan.contentTokens, arrivalEpochMs: performance.timeOrigin + a.arrivalMs, tokenEpochMs: [],
      endEpochMs: null, finishReason: null, cachedTokens: 0, outcome: 'in-flight', faults: a.faults.map((f) => f.kind),
    };
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
    // idle engine starts its step back at that time (lateMs), a busy one admits it at its next step.
    const queuedMs = this.options.fixed ? a.arrivalMs : a.arrivalMs + this.profile.hardware.requestOverheadMs;
    const engineReq: EngineRequest = {
      id: a.id, promptTokens: a.prompt.count, outputTokens: Math.max(1, a.plan.contentTokens), finishReason: a.plan.finishReason,
      arrivalMs: a.arrivalMs, queuedMs, blockHashes: this.blockHashesOf(a), lateMs: Math.max(0, performance.now() - queuedMs),
    };
    const submit = (): void => {
      if (output.done) return;
      submitted = true;
      this.scheduler.submit(engineReq);
    };
    const delay = queuedMs - performance.now();
    if (delay <= 0) submit();
    else {
      // The per-request overhead (o_req) runs beside the engine, never holding up other requests.
      this.pendingOverhead++;
      setTimeout(() => {
        this.pendingOverhead--;
        submit();
      }, delay);
    }
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

  /** GET /debug/ground-truth lists the records, DELETE clears them; false for any other method, which is then not found. */
  private groundTruthRoute(method: string, res: ServerResponse): boolean {
    if (!this.options.groundTruth) throw new ApiError(404, 'Ground truth is not enabled: start the simulator with --ground-truth.');
    if (method === 'DELETE') {
      this.truth.clear();
      res.writeHead(204).end();
      return true;
    }
    if (method === 'GET') {
      sendJson(res, 200, { records: this.truth.all() });
      return true;
    }
    return false;
  }

  /**
   * POST /debug/stall?ms=N: a server-wide stall (a GPU hiccup) from now, answered with its window in epoch ms, the
   * ground truth's clock; false for any other method. A debug route like the ground truth's, so only with it.
   */
  private stallRoute(method: string, req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.options.groundTruth)
      throw new ApiError(404, 'The stall route is not enabled: start the simulator with --ground-truth.');
    if (method !== 'POST') return false;
    req.resume();
    const ms = Number(new URL(req.url ?? '/', 'http://sim').searchParams.get('ms') ?? NaN);
    if (!(ms > 0 && ms <= MAX_STALL_MS))
      throw new ApiError(400, `ms must be a number of milliseconds above 0 and at most ${MAX_STALL_MS}.`, 'ms');
    const startMs = performance.now();
    const endMs = this.scheduler.stall(ms);
    sendJson(res, 200, { startEpochMs: performance.timeOrigin + startMs, endEpochMs: performance.timeOrigin + endMs });
    return true;
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

  /** Waiting requests as the metrics and the queue limit count them: the scheduler's queue and those still in their overhead. */
  private waitingRequests(): number {
    return this.scheduler.waiting() + this.pendingOverhead;
  }
}

/** llama.cpp's rerank paths (vLLM's and Jina's is the first). */
const EMBED_RERANK_PATHS: readonly string[] = ['/v1/rerank', '/rerank', '/v1/reranking', '/reranking'];

/** What the scheduler's tokens go to: a generation's response, or an embed answer. */
interface InFlight {
  readonly promptTokens: number;
  onToken(ev: TokenEvent): void;
  clientGone(): void;
}

/** An embeddings or rerank answer: sent whole once the engine has run its prefill (its one token). */
class EmbedAnswer implements InFlight {
  done = false;

  constructor(
    private readonly res: ServerResponse,
    readonly promptTokens: number,
    private readonly body: () => unknown,
  ) {}

  onToken(): void {
    if (this.done) return;
    this.done = true;
    sendJson(this.res, 200, this.body());
  }

  clientGone(): void {
    this.done = true;
  }
}

/** A generation request past admission, as its response and the scheduler need it. */
interface Admitted {
  readonly g: GenerationRequest;
  readonly faults: readonly Fault[];
  readonly prompt: PromptTokens;
  readonly seed: number;
  readonly plan: OutputPlan;
  /** performance.now() at arrival. */
  readonly arrivalMs: number;
  /** The client's x-request-id, or a new UUID. */
  readonly requestId: string;
  /** The scheduler's id, unique in this server. */
  readonly id: string;
}

/** The faults a request's x-sim-fault header asks for; a bad spec is the client's error (400). */
function headerFaults(req: IncomingMessage): Fault[] {
  const spec = req.headers[FAULT_HEADER];
  if (typeof spec !== 'string') return [];
  try {
    return parseFaultSpec(spec);
  } catch (e) {
    throw new ApiError(400, `${FAULT_HEADER}: ${(e as Error).message}`);
  }
}

/** The text /tokenize counts: the prompt, or the messages in the chat template, ending before the assistant's turn unless asked for it. */
function tokenizeInput(t: TokenizeRequest): string {
  if (!t.messages) return t.prompt!;
  const text = renderChatMl(t.messages);
  return t.addGenerationPrompt ? text : text.slice(0, text.length - '<|im_start|>assistant\n'.length);
}

/** The json-error fault: a 200 whose body is an error. */
function sendJsonErrorFault(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    error: {
      message: 'Injected fault: json-error (model overloaded)', type: 'ServiceUnavailableError', param: null,
      code: 503,
    },
  }));
}

/** The client's x-request-id, if it sent a non-empty one. */
function clientRequestId(req: IncomingMessage): string | null {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && given !== '' ? given : null;
}

const ID_PREFIX: Record<Endpoint, string> = { chat: 'chatcmpl-', completion: 'cmpl-', responses: 'resp_', messages: 'msg_' };

/** The response's id (its API's prefix), creation second and model, as the chunks carry them. */
function streamIdentity(g: GenerationRequest, flavour: Flavour): StreamIdentity {
  return {
    id: ID_PREFIX[g.endpoint] + randomBytes(16).toString('hex'),
    created: Math.floor(Date.now() / 1000),
    model: g.model,
    endpoint: g.endpoint,
    flavour,
  };
}

/** Serves handler at options.host and options.port (0: a free one); resolves once it listens. */
async function listen(options: SimOptions, handler: RequestListener): Promise<{ server: HttpServer | HttpsServer; port: number }> {
  // HTTP/1.1 only over TLS too (no ALPN h2), as vLLM's and SGLang's uvicorn serve it.
  const server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** The /v1 base URL clients use: a wildcard host is reached on loopback, an IPv6 one needs brackets. */
function baseUrl(options: SimOptions, port: number): string {
  const host = options.host ?? '127.0.0.1';
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${options.tls ? 'https' : 'http'}://${urlHost}:${port}/v1`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return readRequestBody(req, MAX_BODY_BYTES, () => new ApiError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`));
}
