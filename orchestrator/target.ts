// The server a bench run measures: the URL given, or the simulator or real server the bench started. Runs in Node.

import { EXIT, UserError } from '../lib/exit-codes';
import type { SimChild } from '../sim/child';
import type { Profile } from '../sim/profiles';
import type { BuiltInServer } from './built-in-server';

/** The server under test: its base URL, and the simulator or real server when the bench started one (stopped at the end). */
export interface Target {
  readonly baseUrl: string;
  readonly sim: { readonly child: SimChild; readonly profile: Profile } | null;
  readonly server: BuiltInServer | null;
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
    throw new UserError(`cannot reach ${baseUrl}/models (${(e as Error).message}); check --url or pass --model`, EXIT.unreachable);
  }
  if (!res.ok)
    throw new UserError(
      `${baseUrl}/models answered HTTP ${res.status}; pass --model (and an API key in LLM_API_KEY if the server needs one)`,
      EXIT.unreachable,
    );
  const body = (await res.json()) as { data?: { id?: string }[] };
  const id = body.data?.[0]?.id;
  if (!id) throw new UserError(`${baseUrl}/models lists no model; pass --model`, EXIT.unreachable);
  return id;
}
