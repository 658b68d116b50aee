// The renderer's standing e-stop line on the machine door, over real HTTP and WebSocket on loopback,
// with the controller on an in-memory link to the fake Marlin.
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ESTOP_SOCKET_MESSAGE, ESTOP_SOCKET_ROUTE } from '../../../engine/machine/door.ts';
import { createMemoryLink } from '../../../engine/machine/transport.ts';
import { FakeMarlin } from '../testing/fake-marlin.ts';
import { MachineController } from './controller.ts';
import { buildMachineDoor } from './door.ts';
import { WRONG_MESSAGE_CODE } from './estop-socket.ts';

const PAGE = 'http://127.0.0.1:8001';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function serveDoor() {
  const link = createMemoryLink();
  const fake = new FakeMarlin({ send: (text) => link.device.send(text) });
  link.device.onLine((line) => fake.receive(`${line}\n`));
  const machine = new MachineController({ open: async () => link.transport, timings: { bootIdleMs: 10 } });
  cleanups.push(() => machine.close());
  const app: FastifyInstance = await buildMachineDoor({
    logger: pino({ level: 'silent' }),
    machine,
    allowRemote: () => false,
    allowedRoots: [],
    allowedOrigins: () => [PAGE],
    attachments: { attach: () => () => {} },
    onRelease: () => {},
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => app.close());
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { machine, fake, port, url: `ws://127.0.0.1:${port}${ESTOP_SOCKET_ROUTE}` };
}

/** Opens a line; resolves with the socket once open, or with the refusal's status and body. */
function openLine(url: string, headers: Record<string, string>) {
  return new Promise<{ socket?: WebSocket; status?: number; body?: string }>((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => resolve({ socket }));
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    socket.once('error', () => {});
    cleanups.push(async () => socket.terminate());
  });
}

const nextMessage = (socket: WebSocket) =>
  new Promise<unknown>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));

describe('the e-stop line', () => {
  it('sends M112 for one message from an attached core’s page, and answers as the POST route does', async () => {
    const { machine, fake, url } = await serveDoor();
    await machine.connect('/dev/fake');
    const { socket } = await openLine(url, { origin: PAGE });
    expect(socket).toBeDefined();
    const answer = nextMessage(socket as WebSocket);
    (socket as WebSocket).send(ESTOP_SOCKET_MESSAGE);
    expect(await answer).toMatchObject({ sent: true, status: { state: 'error', message: 'Emergency stop' } });
    expect(fake.estopAt).toBeDefined();
    expect(fake.unframed).toContain('M112');
  });

  it('says when no port was open to write M112 to', async () => {
    const { url } = await serveDoor();
    const { socket } = await openLine(url, { origin: PAGE });
    const answer = nextMessage(socket as WebSocket);
    (socket as WebSocket).send(ESTOP_SOCKET_MESSAGE);
    expect(await answer).toMatchObject({ sent: false, status: { state: 'idle' } });
  });

  it('refuses a handshake from another origin, without one, or addressed to another name', async () => {
    const { url, port } = await serveDoor();
    expect(await openLine(url, { origin: 'http://evil.example' })).toEqual({
      status: 403,
      body: JSON.stringify({ detail: 'Cross-origin request refused' }),
    });
    expect((await openLine(url, {})).status).toBe(403);
    expect((await openLine(url, { origin: PAGE, host: `rebound.example:${port}` })).status).toBe(421);
    expect((await openLine(url.replace('/estop/socket', '/status'), { origin: PAGE })).status).toBe(404);
  });

  it('closes the line on any other message and sends nothing to the controller', async () => {
    const { machine, fake, url } = await serveDoor();
    await machine.connect('/dev/fake');
    for (const message of ['estop', '{"type":"estop","x":1}', 'x'.repeat(65)]) {
      const { socket } = await openLine(url, { origin: PAGE });
      const closed = new Promise<number>((resolve) => (socket as WebSocket).once('close', resolve));
      (socket as WebSocket).send(message);
      // An oversized message ends in 1009 (too big), the others in 1008.
      expect([WRONG_MESSAGE_CODE, 1009]).toContain(await closed);
    }
    expect(fake.estopAt).toBeUndefined();
    expect(machine.status().state).toBe('ready');
  });
});
