// Property test: random sequences of dashboard operations by random actors, on a real SQLite file,
// keep the invariants of §8 — tokens exactly for shared dashboards, one revocation event per share
// token version, one revision per accepted document write, and nobody sees what they may not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.ts';
import { openDatabase } from '../db/database.ts';
import type { UserRow } from '../db/repositories/users.ts';
import { Store } from '../db/store.ts';
import { ServiceError } from '../errors.ts';
import type { Visibility } from './access.ts';
import { ChangeBus } from './bus.ts';
import { type DashboardPolicy, DashboardService } from './service.ts';

const ROLES = ['admin', 'editor', 'editor', 'viewer'] as const;
const VISIBILITIES: Visibility[] = ['private', 'link', 'public'];

type Op =
  | { kind: 'create'; actor: number; visibility: Visibility | null }
  | { kind: 'update'; actor: number; target: number; stale: boolean }
  | { kind: 'visibility'; actor: number; target: number; visibility: Visibility }
  | { kind: 'rotate'; actor: number; target: number }
  | { kind: 'grant'; actor: number; target: number; user: number; level: 'viewer' | 'editor' }
  | { kind: 'revoke'; actor: number; target: number; user: number }
  | { kind: 'transfer'; actor: number; target: number; user: number }
  | { kind: 'restore'; actor: number; target: number }
  | { kind: 'delete'; actor: number; target: number };

const actor = fc.nat({ max: ROLES.length - 1 });
const target = fc.nat({ max: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    actor,
    visibility: fc.constantFrom(null, ...VISIBILITIES),
  }),
  fc.record({ kind: fc.constant('update' as const), actor, target, stale: fc.boolean() }),
  fc.record({
    kind: fc.constant('visibility' as const),
    actor,
    target,
    visibility: fc.constantFrom(...VISIBILITIES),
  }),
  fc.record({ kind: fc.constant('rotate' as const), actor, target }),
  fc.record({
    kind: fc.constant('grant' as const),
    actor,
    target,
    user: actor,
    level: fc.constantFrom('viewer' as const, 'editor' as const),
  }),
  fc.record({ kind: fc.constant('revoke' as const), actor, target, user: actor }),
  fc.record({ kind: fc.constant('transfer' as const), actor, target, user: actor }),
  fc.record({ kind: fc.constant('restore' as const), actor, target }),
  fc.record({ kind: fc.constant('delete' as const), actor, target }),
);

describe('dashboard invariants', () => {
  it('hold for random operations by random actors', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), fc.boolean(), (ops, editorCanPublish) => {
        const dir = mkdtempSync(join(tmpdir(), 'towpath-prop-'));
        const database = openDatabase(dir);
        try {
          const store = new Store(database);
          let now = Date.parse('2030-01-01T00:00:00.000Z');
          const policy: DashboardPolicy = {
            editorCanPublish,
            dashboardDefaultVisibility: 'private',
            dashboardPublicListingEnabled: true,
            executionMode: 'safe',
          };
          const service = new DashboardService({
            store,
            clock: () => now,
            audit: { record: () => {} },
            bus: new ChangeBus(),
            policy: () => policy,
          });
          const users: UserRow[] = ROLES.map((role, i) => {
            const row: UserRow = {
              id: `${'0'.repeat(22)}0${i}`,
              email: `u${i}@towpath.test`,
              passwordHash: 'x',
              role,
              active: true,
              sessionVersion: 0,
              registrationDate: new Date(now).toISOString(),
              lastLogin: new Date(now).toISOString(),
            };
            store.users.insert(row);
            return row;
          });
          const principal = (i: number): Principal => ({ kind: 'user', user: users[i] as UserRow });
          const ids: string[] = [];
          const writes = new Map<string, number>();
          const highestVersion = new Map<string, number>();
          const pick = (i: number) => ids[i % Math.max(ids.length, 1)] ?? 'missing';
          for (const step of ops) {
            now += 1000;
            const as = principal(step.actor);
            const id = pick((step as { target?: number }).target ?? 0);
            try {
              switch (step.kind) {
                case 'create': {
                  const view = service.create(users[step.actor] as UserRow, {
                    title: 'T',
                    version: '1',
                    visibility: step.visibility,
                  });
                  ids.push(view._id);
                  writes.set(view._id, 0);
                  break;
                }
                case 'update': {
                  const row = store.dashboards.byId(id);
                  const expected = (row?.documentRevision ?? 1) - (step.stale ? 1 : 0);
                  service.update(as, id, { title: `t${now}`, expectedDocumentRevision: expected });
                  writes.set(id, (writes.get(id) ?? 0) + 1);
                  break;
                }
                case 'restore': {
                  const row = store.dashboards.byId(id);
                  service.restoreRevision(as, id, 1, row?.documentRevision ?? 1);
                  writes.set(id, (writes.get(id) ?? 0) + 1);
                  break;
                }
                case 'visibility':
                  service.setVisibility(as, id, step.visibility);
                  break;
                case 'rotate':
                  service.rotateShareToken(as, id);
                  break;
                case 'grant':
                  service.upsertAccess(as, id, (users[step.user] as UserRow).email, step.level);
                  break;
                case 'revoke':
                  service.revokeAccess(as, id, (users[step.user] as UserRow).id);
                  break;
                case 'transfer':
                  service.transferOwnership(as, id, (users[step.user] as UserRow).id);
                  break;
                case 'delete':
                  service.delete(as, id);
                  break;
              }
            } catch (error) {
              if (!(error instanceof ServiceError)) throw error;
            }
            checkInvariants();
          }

          function checkInvariants() {
            for (const id of ids) {
              const row = store.dashboards.byId(id);
              const events = store.dashboards.revocationEventsOf(id);
              if (!row) {
                for (const as of users.map((_, i) => principal(i)))
                  expect(() => service.get(as, id)).toThrow('Dashboard not found');
                continue;
              }
              expect(row.shareToken !== null).toBe(row.visibility !== 'private');
              expect(row.shareTokenVersion).toBeGreaterThanOrEqual(highestVersion.get(id) ?? 1);
              highestVersion.set(id, row.shareTokenVersion);
              expect(events.map((event) => event.shareTokenVersion)).toEqual(
                Array.from({ length: row.shareTokenVersion - 1 }, (_, i) => i + 2),
              );
              expect(row.documentRevision).toBe(1 + (writes.get(id) ?? 0));
              const acl = store.dashboards.aclFor(id);
              for (const [i, user] of users.entries()) {
                const entry = acl.find((e) => e.userId === user.id);
                const isOwner = row.ownerId === user.id;
                const read =
                  user.role === 'admin' || isOwner || entry !== undefined || row.visibility === 'public';
                const manage =
                  user.role === 'admin' ||
                  (user.role === 'editor' && (isOwner || entry?.accessLevel === 'editor'));
                if (!read) {
                  expect(() => service.get(principal(i), id)).toThrow('Dashboard not found');
                  continue;
                }
                const view = service.get(principal(i), id);
                expect(view.canManageSharing).toBe(manage);
                if (!manage) expect([view.shareToken, view.acl, view.user]).toEqual([null, [], null]);
                else expect(view.shareToken).toBe(row.shareToken);
                const listed = service.list(user).some((d) => d.shareToken && !manage && d._id === id);
                expect(listed).toBe(false);
              }
              const anonymous = row.visibility === 'public';
              if (!anonymous)
                expect(() => service.get({ kind: 'anonymous' }, id)).toThrow('Dashboard not found');
              else
                expect(service.get({ kind: 'anonymous' }, id)).toMatchObject({
                  shareToken: null,
                  acl: [],
                  user: null,
                });
            }
          }
        } finally {
          database.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
