// A refused WebSocket upgrade: the socket has left the HTTP server, so the answer is written by
// hand — a status line, a JSON body and `connection: close`. The realtime gateway and the machine
// door's e-stop line both refuse this way.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function refuseUpgrade(socket: Duplex, status: number, body: object, headers: string[] = []): void {
  const text = JSON.stringify(body);
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(text)}`,
      'connection: close',
      ...headers,
      '',
      text,
    ].join('\r\n'),
  );
}
