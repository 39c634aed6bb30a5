// Appends text to a file in large batches so per-sample output costs a string push, flushed on close. Runs in Node.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class BufferedFile {
  private parts: string[] = [];
  private size = 0;
  private readonly fd: number;
  private readonly timer: NodeJS.Timeout;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
    // k6 flushes its CSV every second (saveInterval); so do we, so a killed run keeps most samples.
    this.timer = setInterval(() => this.flush(), 1000);
    this.timer.unref();
  }

  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size > 1 << 20) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
    closeSync(this.fd);
  }
}
