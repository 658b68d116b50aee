// Posting to the `/internal/gateway/*` door as an outside gateway would.

export interface DoorAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface DoorRequest {
  /** The bearer credential; none when null. */
  token: string | null;
  /** Sent as X-Forwarded-For (the workstation trusts its loopback proxy with API_TRUST_PROXY_HOPS=1). */
  ip?: string;
  method?: string;
  /** Sent as is when a string, else as JSON. */
  body?: unknown;
  contentType?: string;
}

export async function callDoor(baseUrl: string, path: string, request: DoorRequest): Promise<DoorAnswer> {
  const { token, ip, method = 'POST', body = {}, contentType = 'application/json' } = request;
  const response = await fetch(`${baseUrl}/internal/gateway/${path}`, {
    method,
    headers: {
      ...(method === 'GET' || method === 'HEAD' ? {} : { 'content-type': contentType }),
      ...(token !== null ? { authorization: `Bearer ${token}` } : {}),
      ...(ip ? { 'x-forwarded-for': ip } : {}),
    },
    ...(method === 'GET' || method === 'HEAD'
      ? {}
      : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text === '' ? {} : JSON.parse(text);
  } catch {
    parsed = { raw: text };
  }
  return { status: response.status, headers: response.headers, body: parsed };
}
