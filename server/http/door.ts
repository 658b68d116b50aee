import type { FastifyInstance } from 'fastify';
import { StartupError } from '../errors.ts';

export interface DoorAddress {
  host: string;
  port: number;
}

/**
 * One listener of the workstation. A fastify instance cannot listen again once closed, so each
 * start builds a fresh one; after the first start the door keeps the port it got (port 0 = any
 * free port), so its URL stays the same across a stop and a start.
 */
export class Door {
  readonly name: string;
  readonly #build: () => FastifyInstance | Promise<FastifyInstance>;
  #address: DoorAddress;
  #app: FastifyInstance | undefined;
  #transition: Promise<unknown> = Promise.resolve();

  constructor(name: string, address: DoorAddress, build: () => FastifyInstance | Promise<FastifyInstance>) {
    this.name = name;
    this.#address = { ...address };
    this.#build = build;
  }

  get running(): boolean {
    return this.#app !== undefined;
  }

  /** Base URL a client on this machine uses (wildcard binds are reached through loopback). */
  get url(): string {
    return doorUrl(this.#address);
  }

  /** Starts listening; a no-op when already running. Failures are `StartupError`s with one clear line. */
  start(): Promise<string> {
    return this.#serialise(async () => {
      if (this.#app) return this.url;
      const app = await this.#build();
      try {
        await app.listen({ host: this.#address.host, port: this.#address.port });
      } catch (error) {
        await app.close().catch(() => {});
        throw listenError(this.name, this.#address, error);
      }
      const bound = app.server.address();
      if (bound && typeof bound === 'object') this.#address = { ...this.#address, port: bound.port };
      this.#app = app;
      return this.url;
    });
  }

  /** Stops listening and closes open connections; a no-op when stopped. */
  stop(): Promise<void> {
    return this.#serialise(async () => {
      const app = this.#app;
      this.#app = undefined;
      await app?.close();
    });
  }

  // Start and stop may be requested concurrently (a signal during start-up, two HTTP calls); running
  // them one after another keeps `#app` and the port consistent.
  #serialise<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#transition.then(step, step);
    this.#transition = next.catch(() => {});
    return next;
  }
}

function doorUrl({ host, port }: DoorAddress): string {
  if (host === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

function listenError(name: string, { host, port }: DoorAddress, error: unknown): StartupError {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${name} door on ${host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`cannot start the ${where}: the port is already in use`);
    case 'EACCES':
      return new StartupError(
        `cannot start the ${where}: permission denied (ports below 1024 need privileges)`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`cannot start the ${where}: the address is not available on this machine`);
    default:
      return new StartupError(`cannot start the ${where}: ${(error as Error).message ?? String(error)}`);
  }
}
