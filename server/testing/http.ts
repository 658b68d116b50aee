// Test support: browser-shaped requests over real loopback HTTP. `fetch` will not send every header
// a hostile page or a rebound DNS name produces (Host, for one), so this speaks node:http directly.
import { request as httpRequest } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One request on its own connection; `headers` are sent exactly as given (Host included). */
export function rawRequest(url: string, { method = 'GET', headers = {}, body }: RawRequest = {}) {
  const target = new URL(url);
  return new Promise<RawResponse>((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { connection: 'close', ...headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
