// Server-sent events with named event types, reconnecting as EventSource does by itself.

export interface SseSubscription {
  close(): void;
}

export function subscribeEvents(
  url: string,
  handlers: Record<string, (data: unknown) => void>,
  onConnection?: (open: boolean) => void,
): SseSubscription {
  const source = new EventSource(url);
  for (const [name, handler] of Object.entries(handlers)) {
    source.addEventListener(name, (event) => {
      let data: unknown;
      try {
        data = JSON.parse((event as MessageEvent<string>).data);
      } catch {
        return;
      }
      handler(data);
    });
  }
  source.onopen = () => onConnection?.(true);
  source.onerror = () => onConnection?.(false);
  return { close: () => source.close() };
}
