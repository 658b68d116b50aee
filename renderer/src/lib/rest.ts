// A small typed JSON client for the LAN door's REST routes. By default errors carry the route's
// `detail`; an area whose routes answer another envelope passes its own `errors`.

export class RestError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'RestError';
    this.status = status;
  }
}

/** An answer's JSON body, or null where it had none. */
export type AnswerBody = { [key: string]: unknown } | null;

/** How an area's routes report failure: the errors a client throws for them. */
export interface ErrorEnvelope {
  /** The request got no answer at all. */
  unreachable(): Error;
  /** The error an answer stands for, or undefined when it is a success. */
  errorOf(status: number, ok: boolean, body: AnswerBody): Error | undefined;
}

/** The default: `{detail}` on failure, as the machine routes answer. */
const DETAIL_ERRORS: ErrorEnvelope = {
  unreachable: () => new RestError(0, 'The workstation is not reachable'),
  errorOf: (status, ok, body) =>
    ok ? undefined : new RestError(status, typeof body?.detail === 'string' ? body.detail : `HTTP ${status}`),
};

export async function requestJson<T>(
  url: string,
  init: {
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    body?: unknown;
    signal?: AbortSignal;
    headers?: Record<string, string>;
    errors?: ErrorEnvelope;
  } = {},
): Promise<T> {
  const method = init.method ?? 'GET';
  const errors = init.errors ?? DETAIL_ERRORS;
  // The core takes state changes as JSON only: an empty object where there is nothing to send.
  const json = method === 'GET' ? init.body : (init.body ?? {});
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
    throw errors.unreachable();
  }
  const body = (await response.json().catch(() => null)) as AnswerBody;
  const failure = errors.errorOf(response.status, response.ok, body);
  if (failure) throw failure;
  return body as T;
}
