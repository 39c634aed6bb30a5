// The trace loader's public surface: load a production LLM trace, select a replay window, describe it.
// Runs in k6 and Node (pure).

export { TRACE_FORMATS, BLOCK_TOKENS, TraceError, describeRowIssue } from './types';
export type { TraceFormat, TraceRow, TraceLoad, RowIssue } from './types';
export { detectTraceFormat } from './detect';
export { loadTrace, createTraceLoader, type TraceLoader } from './load';
export { selectRows, type SelectOptions, type Selection } from './select';
export { traceStats, type TraceStats, type LengthStats } from './stats';
export { renderLoadFindings, renderSelection, renderStatsTable } from './render';
