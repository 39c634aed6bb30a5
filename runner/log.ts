// k6-style log lines on stderr (logrus text format: time="..." level=... msg="..."). Runs in Node.

function quote(text: string): string {
  return JSON.stringify(text);
}

/** Formats one line like k6's logger: time="2026-11-22T05:17:47Z" level=error msg="..." key=value. */
export function formatLogLine(level: 'debug' | 'info' | 'warning' | 'error', msg: string, fields: Record<string, string> = {}): string {
  const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  let line = `time="${time}" level=${level} msg=${quote(msg)}`;
  for (const [k, v] of Object.entries(fields)) line += ` ${k}=${/^[\w./:-]+$/.test(v) ? v : quote(v)}`;
  return line + '\n';
}

export function logLine(level: 'debug' | 'info' | 'warning' | 'error', msg: string, fields?: Record<string, string>): void {
  process.stderr.write(formatLogLine(level, msg, fields));
}
