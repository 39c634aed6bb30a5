// Worker-thread bootstrap for the simulator's tokenizer pool: registers tsx so the TypeScript worker can load.
// Runs in Node (worker thread).
import { register } from 'tsx/esm/api';

register();
await import('./tokenize-worker.ts');
