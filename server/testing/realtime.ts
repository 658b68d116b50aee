// Test support for the realtime gateway: a socket client that records every message, and real SSE
// and WebSocket upstream servers on loopback that tests push values through.
import { createServer, type ServerResponse } from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * Limits raised for tests and benchmarks that open many sockets and mint many tokens from one
 * address, with loopback upstreams allowed (the test's own servers live there).
 */
export const GATEWAY_TEST_LIMITS = {
  GATEWAY_EGRESS_ALLOW: 'loopback',
  GATEWAY_REALTIME_CONNECT_IP_PER_MIN: '10000',
  GATEWAY_REALTIME_PUBLIC_SUBSCRIBE_IP_PER_MIN: '10000',
  GATEWAY_REALTIME_PUBLIC_SUBSCRIBE_SHARE_PER_MIN: '10000',
  GATEWAY_MAX_SOCKETS_PER_IP: '1000',
  DATASOURCE_TOKEN_MINT_RATE_LIMIT_PUBLIC_IP_PER_MIN: '10000',
  DATASOURCE_TOKEN_MINT_RATE_LIMIT_SHARE_TOKEN_PER_MIN: '10000',
  DATASOURCE_TOKEN_MINT_RATE_LIMIT_USER_PER_MIN: '10000',
};

export type GatewayMessage = { type: string; id?: string | null; [field: string]: unknown };

export interface RealtimeClient {
  ws: WebSocket;
  messages: GatewayMessage[];
  send(message: object): void;
  /** Resolves with the first recorded message (from `from` on) that matches. */
  next(match: (m: GatewayMessage) => boolean, timeoutMs?: number, from?: number): Promise<GatewayMessage>;
  /** Resolves once the socket is closed, with its code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

export async function connectRealtime(
  lanUrl: string,
  options: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<RealtimeClient> {
  const ws = new WebSocket(
    `${lanUrl.replace(/^http/, 'ws')}/gateway/realtime`,
    options.protocols ?? ['towpath.gateway.v1'],
    {
      headers: options.headers,
    },
  );
  const messages: GatewayMessage[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as GatewayMessage);
    for (const waiter of [...waiters]) waiter();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      for (const waiter of [...waiters]) waiter();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  return {
    ws,
    messages,
    send: (message) => ws.send(JSON.stringify(message)),
    next: (match, timeoutMs = 10_000, from = 0) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.slice(from).find(match);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages.slice(-5))}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    closed,
    close: () => ws.close(),
  };
}

export interface SseServer {
  url: string;
  /** Requests received (headers as sent by the gateway). */
  requests: { headers: Record<string, unknown> }[];
  clients(): number;
  send(data: string, event?: string, id?: string): void;
  /** Ends every open stream (the gateway should reconnect). */
  drop(): void;
  stop(): Promise<void>;
}

export async function startSseServer(): Promise<SseServer> {
  const open = new Set<ServerResponse>();
  const requests: SseServer['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ headers: { ...request.headers } });
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    response.flushHeaders();
    open.add(response);
    response.on('close', () => open.delete(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/events`,
    requests,
    clients: () => open.size,
    send: (data, event, id) => {
      const lines = [
        ...(id === undefined ? [] : [`id: ${id}`]),
        ...(event === undefined ? [] : [`event: ${event}`]),
        ...data.split('\n').map((line) => `data: ${line}`),
      ];
      for (const response of open) response.write(`${lines.join('\n')}\n\n`);
    },
    drop: () => {
      for (const response of open) response.destroy();
    },
    stop: async () => {
      for (const response of open) response.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface WsServer {
  url: string;
  clients(): number;
  /** Headers and subprotocols of each handshake. */
  handshakes: { headers: Record<string, unknown> }[];
  /** Messages the gateway sent upstream (there must be none). */
  received: string[];
  send(data: string | Buffer): void;
  stop(): Promise<void>;
}

export async function startWsServer(): Promise<WsServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const handshakes: WsServer['handshakes'] = [];
  const received: string[] = [];
  server.on('connection', (socket, request) => {
    handshakes.push({ headers: { ...request.headers } });
    socket.on('message', (data) => received.push(String(data)));
  });
  const { port } = server.address() as { port: number };
  return {
    url: `ws://127.0.0.1:${port}/feed`,
    clients: () => server.clients.size,
    handshakes,
    received,
    send: (data) => {
      for (const client of server.clients) client.send(data);
    },
    stop: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
