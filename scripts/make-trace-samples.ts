// Writes the synthetic trace samples in examples/traces/ (one per format), or with --check says whether they are
// current. Runs in Node: `npx tsx scripts/make-trace-samples.ts [--check]`.
//
// Every value is drawn from a seeded generator (lib/random.ts), so the files repeat byte for byte. They imitate the
// published schemas only; no row comes from a real trace (examples/traces/README.md).

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../lib/exit-codes';
import { mulberry32 } from '../lib/random';
import { runMain, UserError } from './cli';
import { agentMooncake, agentOtel } from './agent-trace-samples';
import { between, expGap, idCounter, syntheticMooncake } from './synthetic-trace';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'traces');

/** 40 Mooncake rows: three system prompts (4, 2 and 6 blocks of 512 tokens) shared by the requests that use them. */
function mooncake(): string {
  return syntheticMooncake({ rows: 40, meanGapMs: 500, seed: 512, prefixBlocks: [4, 2, 6], extraTokens: [100, 3000],
    outputTokens: [20, 600] });
}

/** "2023-11-16 18:15:46.6805900" for a count of 100 ns ticks after 2023-11-16 18:15:46 UTC, as Azure writes it. */
function azureTime(ticks: number): string {
  const base = Date.UTC(2023, 10, 16, 18, 15, 46);
  const seconds = Math.floor(ticks / 1e7);
  const clock = new Date(base + seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${clock}.${String(ticks % 1e7).padStart(7, '0')}`;
}

/** 40 Azure rows (the 2023 conversation trace's columns), arriving about every 0.8 s. */
function azure(): string {
  const random = mulberry32(2023);
  let ticks = 6805900;
  const lines = ['TIMESTAMP,ContextTokens,GeneratedTokens'];
  for (let i = 0; i < 40; i++) {
    lines.push(`${azureTime(ticks)},${between(random, 200, 6000)},${between(random, 10, 800)}`);
    ticks += Math.round(expGap(random, 0.8) * 1e7);
  }
  return lines.join('\n') + '\n';
}

/** 40 BurstGPT rows (the first release's six columns), two models, three failed requests (0 response tokens). */
function burstGpt(): string {
  const random = mulberry32(4096);
  const failed = new Set([7, 19, 33]);
  let t = 0;
  const lines = ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type'];
  for (let i = 0; i < 40; i++) {
    const model = random() < 0.75 ? 'ChatGPT' : 'GPT-4';
    const request = between(random, 30, 2500);
    const response = failed.has(i) ? 0 : between(random, 5, 900);
    const log = random() < 0.6 ? 'Conversation log' : 'API log';
    lines.push(`${t},${model},${request},${response},${request + response},${log}`);
    t += Math.round(expGap(random, 2)); // whole seconds, so some requests share a second, as in the trace
  }
  return lines.join('\n') + '\n';
}

interface Turn {
  conversation: number;
  turn: number;
  timestamp: number;
  input: number;
  output: number;
  type: string;
  hashIds: number[];
}

/**
 * 14 Bailian conversations (10 of 3 turns, 2 of 2, 2 of 1). Every first turn starts with the same 64-token system
 * prompt (4 blocks of 16 tokens); a later turn's prompt is the previous prompt, its answer and a new message, so it
 * repeats the previous prompt's full blocks.
 */
function bailianTurns(): Turn[] {
  const random = mulberry32(16);
  const fresh = idCounter(1000);
  const system = [1, 2, 3, 4];
  const turns: Turn[] = [];
  let start = 0;
  for (let c = 0; c < 14; c++) {
    const count = c < 10 ? 3 : c < 12 ? 2 : 1;
    const type = ['text', 'text', 'text', 'search', 'image', 'file'][between(random, 0, 5)]!;
    let timestamp = start;
    let input = 64 + between(random, 50, 800);
    let hashIds = [...system, ...fresh(Math.ceil(input / 16) - system.length)];
    for (let k = 1; k <= count; k++) {
      const output = between(random, 20, 400);
      turns.push({ conversation: c, turn: k, timestamp, input, output, type, hashIds });
      const kept = hashIds.slice(0, Math.floor(input / 16)); // a partial last block changes once text follows it
      input += output + between(random, 20, 300);
      hashIds = [...kept, ...fresh(Math.ceil(input / 16) - kept.length)];
      timestamp += 5 + random() * 25; // the user reads the answer and types the next message
    }
    start += expGap(random, 1.5);
  }
  return turns.sort((a, b) => a.timestamp - b.timestamp);
}

function bailian(): string {
  const turns = bailianTurns();
  const chatIdOf = new Map<Turn, number>(turns.map((t, i) => [t, i + 1]));
  const lines = turns.map((t) => {
    const parent = turns.find((p) => p.conversation === t.conversation && p.turn === t.turn - 1);
    return JSON.stringify({
      chat_id: chatIdOf.get(t), parent_chat_id: parent === undefined ? -1 : chatIdOf.get(parent),
      timestamp: Math.round(t.timestamp * 1000) / 1000, input_length: t.input, output_length: t.output, type: t.type,
      turn: t.turn, hash_ids: t.hashIds,
    });
  });
  return lines.join('\n') + '\n';
}

const SAMPLES: Readonly<Record<string, () => string>> = {
  'mooncake.jsonl': mooncake, 'azure.csv': azure, 'burstgpt.csv': burstGpt, 'bailian.jsonl': bailian,
  'agent-mooncake.jsonl': agentMooncake, 'agent-otel.jsonl': agentOtel,
};

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) throw new UserError(`unknown argument ${unknown[0]} (the only flag is --check)`, EXIT.usage);
  const check = argv.includes('--check');
  const stale: string[] = [];
  for (const [name, make] of Object.entries(SAMPLES)) {
    const file = path.join(DIR, name);
    const text = make();
    if (!check) writeFileSync(file, text);
    else if (readFileSync(file, 'utf8') !== text) stale.push(name);
  }
  if (stale.length > 0)
    throw new UserError(`examples/traces is stale (${stale.join(', ')}); run npx tsx scripts/make-trace-samples.ts`);
  process.stderr.write(`make-trace-samples: ${Object.keys(SAMPLES).length} samples ${check ? 'current' : 'written'}\n`);
  return EXIT.ok;
}

runMain('make-trace-samples', () => main(process.argv.slice(2)));
