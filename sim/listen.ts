// How the simulator listens (HTTP or HTTPS, host and port) and the base URL its clients use. Runs in Node.

import { createServer, type RequestListener, type Server as HttpServer } from 'node:http';
import { createServer as createTlsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SimOptions } from './server-options';

/** Serves handler at options.host and options.port (0: a free one); resolves once it listens. */
export async function listen(
  options: SimOptions, handler: RequestListener,
): Promise<{ server: HttpServer | HttpsServer; port: number }> {
  // HTTP/1.1 only over TLS too (no ALPN h2), as vLLM's and SGLang's uvicorn serve it.
  const server = options.tls
    ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : createServer(handler);
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
export function baseUrl(options: SimOptions, port: number): string {
  const host = options.host ?? '127.0.0.1';
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `${options.tls ? 'https' : 'http'}://${urlHost}:${port}/v1`;
}
