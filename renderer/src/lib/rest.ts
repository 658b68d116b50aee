// A small typed JSON client for the LAN door's REST routes. Errors carry the route's `detail`.

export class RestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'RestError';
    this.status = status;
  }
}

export async function requestJson<T>(
  url: string,
  init: {
    method?: 'GET' | 'POST';
    body?: unknown;
    signal?: AbortSignal;
    headers?: Record<string, string>;
  } = {},
): Promise<T> {
  const method = init.method ?? 'GET';
  // The core takes state changes as JSON only: an empty object where there is nothing to send.
  const json = method === 'POST' ? (init.body ?? {}) : init.body;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      signal: init.signal,
      cache: 'no-store',
      headers: {
        ...init.headers,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  } catch (error) {
    void error;
    throw new RestError(0, 'The workstation is not reachable');
  }
  const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
  if (!response.ok) {
    const detail = typeof body?.detail === 'string' ? body.detail : `HTTP ${response.status}`;
    throw new RestError(response.status, detail);
  }
  return body as T;
}
