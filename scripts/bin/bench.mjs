#!/usr/bin/env node
// Package bin `k6-llm-bench`: runs scripts/bench.ts through tsx, so the installed command is `npm run bench`.
// Runs in Node.
import { register } from 'tsx/esm/api';

register();
await import('../bench.ts');
