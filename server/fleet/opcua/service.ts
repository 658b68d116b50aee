// The OPC UA server as the core sees it: off unless OPCUA_PORT is set, and node-opcua (about a second
// to load) imported only then and only after the core is ready, so a core without it starts as fast
// as ever and one with it is not held up. A server that cannot start leaves the core running and
// says why in the log and in status().
import type { OpcuaConfig } from '../../config/opcua.ts';
import type { Logger } from '../../log.ts';
import type { MachineValueSource } from '../publisher.ts';
import type { RunningOpcuaServer } from './server.ts';

/** What Admin → Diagnostics and adminRuntimeMetrics show. */
export interface OpcuaStatus {
  enabled: boolean;
  /** `opc.tcp://host:port` once listening, else null. */
  endpoint: string | null;
  /** Sessions open now. */
  clients: number;
  lastError: string | null;
  /** When it started listening (ISO), or null. */
  startedAt: string | null;
}

export interface OpcuaServiceOptions {
  /** Null when OPCUA_PORT is unset: status() then says it is off and start() does nothing. */
  config: OpcuaConfig | null;
  dataDir: string;
  /** The `machine` datasource's value; null only when the server is off. */
  feed: MachineValueSource | null;
  logger: Logger;
}

export class OpcuaService {
  readonly #options: OpcuaServiceOptions;
  readonly #logger: Logger;
  #running: RunningOpcuaServer | null = null;
  #starting: Promise<void> | null = null;
  #startedAt: string | null = null;
  #lastError: string | null = null;
  #stopped = false;

  constructor(options: OpcuaServiceOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'opcua' });
  }

  status(): OpcuaStatus {
    return {
      enabled: this.#options.config !== null,
      endpoint: this.#running?.endpoint ?? null,
      clients: this.#running?.sessions() ?? 0,
      lastError: this.#lastError,
      startedAt: this.#startedAt,
    };
  }

  /** Starts listening in the background; `whenStarted()` resolves once it listens or has failed. */
  start(): void {
    const { config, feed } = this.#options;
    if (config === null || feed === null || this.#starting || this.#stopped) return;
    this.#starting = this.#start(config, feed);
  }

  whenStarted(): Promise<OpcuaStatus> {
    return (this.#starting ?? Promise.resolve()).then(() => this.status());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#starting;
    const running = this.#running;
    this.#running = null;
    await running?.stop();
  }

  async #start(config: OpcuaConfig, feed: MachineValueSource): Promise<void> {
    try {
      const { startOpcuaServer } = await import('./server.ts');
      const running = await startOpcuaServer({
        config,
        feed,
        dataDir: this.#options.dataDir,
        logger: this.#logger,
      });
      if (this.#stopped) {
        await running.stop();
        return;
      }
      this.#running = running;
      this.#startedAt = new Date().toISOString();
      this.#logger.info(
        {
          event: 'opcua.listening',
          endpoint: running.endpoint,
          anonymous: config.allowAnonymous,
          certificateCreatedMs: running.certificateMs || undefined,
        },
        `opcua.listening at ${running.endpoint}`,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      this.#lastError =
        code === 'EADDRINUSE'
          ? `OPCUA_PORT ${config.port} is taken by another program`
          : error instanceof Error
            ? error.message
            : String(error);
      this.#logger.error(
        { event: 'opcua.error', port: config.port, error: this.#lastError },
        `opcua.error: the OPC UA server did not start: ${this.#lastError}`,
      );
    }
  }
}
