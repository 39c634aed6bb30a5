// The server a bench run measures: the URL given, or the simulator or real server the bench started. Runs in Node.

import { EXIT, UserError } from '../lib/exit-codes';
import { startSimChild, type SimChild } from '../sim/child';
import { resolveProfile, type Profile } from '../sim/profiles';
import { startBuiltInServer, type BuiltInServer } from './built-in-server';
import type { BenchOptions } from './bench-options';

/** The server under test: its base URL, and the simulator or real server the bench started (stopped at the end). */
export interface Target {
  readonly baseUrl: string;
  readonly sim: { readonly child: SimChild; readonly profile: Profile } | null;
  readonly server: BuiltInServer | null;
}

/** The server under test: the URL given, or else the built-in target (simulator or real server), in its own process. */
export async function startTarget(
  options: Pick<BenchOptions, 'url' | 'target' | 'simProfile' | 'simNoise'>, log: (line: string) => void,
): Promise<Target> {
  if (options.url) return { baseUrl: options.url, sim: null, server: null };
  if (options.target && options.target !== 'sim') {
    const server = await startBuiltInServer(options.target, log);
    const baseUrl = `${server.base}/v1`;
    log(`${server.description} listening at ${baseUrl}`);
    return { baseUrl, sim: null, server };
  }
  const profile = resolveProfile(options.simProfile ?? undefined);
  const noise = options.simNoise;
  const noiseArgs = noise ? ['--noise', ...(noise.seed !== null ? ['--noise-seed', String(noise.seed)] : [])] : [];
  const child = await startSimChild(['--profile', options.simProfile ?? profile.name, ...noiseArgs]);
  const baseUrl = `${child.base}/v1`;
  const noiseNote = child.noiseSeed !== null ? `, step-time noise with seed ${child.noiseSeed}` : '';
  log(`simulator (profile ${profile.name}${noiseNote}, its own process) listening at ${baseUrl}`);
  return { baseUrl, sim: { child, profile }, server: null };
}

export async function stopTarget(target: Target): Promise<void> {
  await target.sim?.child.stop();
  await target.server?.stop();
}

/** The model to ask for when none is given: the first the server's /models lists. */
export async function discoverModel(baseUrl: string, apiKey: string | null): Promise<string> {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  let res: Response;
  try {
    res = await fetch(`${baseUrl}/models`, { headers, signal: AbortSignal.timeout(15_000) });
  } catch (e) {
    const reason = (e as Error).message;
    throw new UserError(`cannot reach ${baseUrl}/models (${reason}); check --url or pass --model`, EXIT.unreachable);
  }
  if (!res.ok)
    throw new UserError(
      `${baseUrl}/models answered HTTP ${res.status}; pass --model (and an API key in LLM_API_KEY if the server ` +
      'needs one)',
      EXIT.unreachable,
    );
  const body = (await res.json()) as { data?: { id?: string }[] };
  const id = body.data?.[0]?.id;
  if (!id) throw new UserError(`${baseUrl}/models lists no model; pass --model`, EXIT.unreachable);
  return id;
}
