// One live subscription of a socket (gateway spec §3.2): what authorised it (a session token or,
// for `machine`, the caller's auth), the upstream it is attached to, and its numbered messages.

import type { TimerHandle } from '../../../engine/machine/clock.ts';
import type { UpstreamMessage } from '../upstreams/payload.ts';
import type { Attachment } from '../upstreams/pool.ts';
import type { FailReason, ProblemCode, UpstreamSink, UpstreamState } from '../upstreams/shared.ts';
import type { ClientSocket } from './client-socket.ts';
import type { Kind } from './protocol.ts';

export type Flow = 'user' | 'public' | 'service' | 'machine';

/** The verified claims of a datasource session token that the gateway keeps using. */
export interface TokenClaims {
  sub: string;
  exp: number;
  jti: string;
  dashboardId: string;
  datasourceId: string;
  intentHash: string;
  credentialProfileId: string | null;
  shareTokenVersion?: number;
}

export interface MachineAuth {
  bearer?: string;
  shareToken?: string;
}

export interface SubscriptionInit {
  id: string;
  client: ClientSocket;
  dashboardId: string;
  datasourceId: string;
  kind: Kind;
  flow: Flow;
  onFail: (subscription: Subscription, reason: FailReason, message: string) => void;
}

export class Subscription implements UpstreamSink {
  readonly id: string;
  readonly client: ClientSocket;
  readonly dashboardId: string;
  readonly datasourceId: string;
  readonly kind: Kind;
  readonly flow: Flow;
  /** Token flow: the current token, its claims and the applied intent it streams. */
  token: string | null = null;
  claims: TokenClaims | null = null;
  intent: Record<string, unknown> | null = null;
  attachment: Attachment | undefined;
  /** Machine flow: the auth it was granted with, and the user it acts as (null: anonymous). */
  auth: MachineAuth | null = null;
  userId: string | null = null;
  /** When the credential expires (ms since the epoch, on the gateway's clock), or null. */
  expiresAt: number | null = null;
  expiryTimer: TimerHandle | undefined;
  closed = false;
  #seq = 0;
  readonly #onFail: SubscriptionInit['onFail'];
  readonly #idJson: string;

  constructor(init: SubscriptionInit) {
    this.id = init.id;
    this.client = init.client;
    this.dashboardId = init.dashboardId;
    this.datasourceId = init.datasourceId;
    this.kind = init.kind;
    this.flow = init.flow;
    this.#onFail = init.onFail;
    this.#idJson = JSON.stringify(init.id);
  }

  status(state: UpstreamState, detail?: { message: string; retryInMs: number }): void {
    if (this.closed) return;
    this.client.send({ type: 'status', id: this.id, status: state, ...detail });
  }

  data(message: UpstreamMessage, replay: boolean): void {
    if (this.closed) return;
    const { topic, event, removed } = message.meta;
    const value = removed ? 'null' : message.valueJson(this.intent?.parser);
    if (value === null) {
      this.problem('PARSE_ERROR', 'Upstream message is not valid JSON');
      return;
    }
    // Built by hand: the value's JSON is shared by every subscription receiving this message.
    this.#seq += 1;
    this.client.sendText(
      `{"type":"data","id":${this.#idJson},"seq":${this.#seq},"at":"${message.at}","value":${value}${
        topic === undefined ? '' : `,"topic":${JSON.stringify(topic)}`
      }${event === undefined ? '' : `,"event":${JSON.stringify(event)}`}${removed ? ',"removed":true' : ''}${
        replay ? ',"replay":true' : ''
      }}`,
    );
  }

  /** A `machine` value: the full status object, numbered like any other data. */
  machineData(value: unknown, at: string): void {
    if (this.closed) return;
    this.#seq += 1;
    this.client.send({ type: 'data', id: this.id, seq: this.#seq, at, value });
  }

  problem(code: ProblemCode, message: string): void {
    if (this.closed) return;
    this.client.send({ type: 'error', id: this.id, code, message });
  }

  fail(reason: FailReason, message: string): void {
    if (!this.closed) this.#onFail(this, reason, message);
  }
}
