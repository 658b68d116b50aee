// /api/doors/* on the LAN door: the winding door's state, a probe of it, and starting and stopping it.
import type { FastifyInstance } from 'fastify';
import { StartupError } from '../errors.ts';
import { type ClientAddresses, loopbackOnly, SOCKET_ADDRESSES } from '../http/client-address.ts';
import type { Door } from '../http/door.ts';

/** How long the LAN door waits for the winding door before calling it unreachable. */
export const WINDING_PROBE_TIMEOUT_MS = 1000;

export interface DoorControlOptions {
  winding: Door;
  /** How clients are told apart (§5.6); socket addresses only when not given. */
  clientAddresses?: ClientAddresses;
}

/**
 * The renderer's view of the winding door. A LAN browser cannot reach the winding door (it stays
 * on loopback), so the LAN door probes it from inside the workstation and reports what it saw.
 * Stopping and starting the winding door (shutting out automation scripts while an operator works
 * at the machine) is allowed only from the workstation itself.
 */
export async function doorControlRoutes(
  app: FastifyInstance,
  { winding, clientAddresses = SOCKET_ADDRESSES }: DoorControlOptions,
) {
  const doorState = () => ({ url: winding.url, running: winding.running });

  app.get('/api/doors', async () => ({ winding: doorState() }));

  app.get('/api/doors/winding/healthz', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const response = await fetch(`${winding.url}/healthz`, {
        signal: AbortSignal.timeout(WINDING_PROBE_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
      return await response.json();
    } catch (error) {
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${WINDING_PROBE_TIMEOUT_MS} ms`
          : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      return reply
        .code(503)
        .send({ status: 'unreachable', detail: `Winding door is not answering (${reason})` });
    }
  });

  // Loopback clients only, addressed by a loopback name (DNS rebinding), checked before the body.
  const localOnly = { onRequest: loopbackOnly(clientAddresses), config: { localHost: true } };

  app.post('/api/doors/winding/stop', localOnly, async (request) => {
    await winding.stop();
    request.log.info({ url: winding.url }, 'winding door stopped on request');
    return doorState();
  });

  app.post('/api/doors/winding/start', localOnly, async (request, reply) => {
    try {
      await winding.start();
    } catch (error) {
      if (error instanceof StartupError) return reply.code(409).send({ detail: error.message });
      throw error;
    }
    request.log.info({ url: winding.url }, 'winding door started on request');
    return doorState();
  });
}
