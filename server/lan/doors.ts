import type { FastifyInstance } from 'fastify';
import { StartupError } from '../errors.ts';
import type { Door } from '../http/door.ts';
import { loopbackOnly } from '../http/loopback.ts';

/** How long the LAN door waits for the winding door before calling it unreachable. */
export const WINDING_PROBE_TIMEOUT_MS = 1000;

export interface DoorsRoutesOptions {
  winding: Door;
}

/**
 * The renderer's view of the winding door. A LAN browser cannot reach the winding door (it stays
 * on loopback), so the LAN door probes it from inside the workstation and reports what it saw.
 * Stopping and starting the winding door (shutting out automation scripts while an operator works
 * at the machine) is allowed only from the workstation itself.
 */
export async function doorsRoutes(app: FastifyInstance, { winding }: DoorsRoutesOptions) {
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
  const localOnly = { onRequest: loopbackOnly(), config: { localHost: true } };

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
