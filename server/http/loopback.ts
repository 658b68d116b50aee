import type { FastifyReply, FastifyRequest } from 'fastify';

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped IPv6 forms. */
function isLoopbackAddress(ip: string | undefined): boolean {
  if (!ip) return false;
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  return v4.startsWith('127.') || ip === '::1';
}

/**
 * A hook (onRequest or preHandler) that lets only clients on this machine through. It looks at the
 * socket address, never at forwarding headers: those are the client's to forge. `refusal` is the
 * 403 body, for doors whose error shape differs.
 */
export function loopbackOnly(
  allowRemote: () => boolean = () => false,
  refusal: unknown = { detail: 'This route accepts only clients on the workstation itself.' },
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (allowRemote() || isLoopbackAddress(request.socket.remoteAddress)) return;
    await reply.code(403).send(refusal);
  };
}
