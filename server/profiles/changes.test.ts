// The change bus tells the realtime gateway after commit when a credential or broker profile
// changed or went away (gateway.md §6.1): the shapes it subscribes to, published by real GraphQL
// mutations, nothing for failed ones.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { Change } from '../dashboards/bus.ts';
import { dataOf, errorCode } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

let f: Fixture;
let seen: Change[] = [];

const admin = (query: string, variables: Record<string, unknown> = {}) => f.call(query, variables, 'admin');
const profileChanges = () => seen.filter((change) => change.kind === 'profile');

beforeAll(async () => {
  f = await startFixture();
  f.ws.dashboardApi.services.bus.subscribe((change) => {
    seen.push(change);
  });
});
beforeEach(() => {
  seen = [];
});
afterAll(() => f?.ws.dispose());

it('publishes credential and broker updates and deletions, and the brokers a deleted credential leaves', async () => {
  const credential = dataOf<{ _id: string }>(
    await admin(
      'mutation { adminCreateCredentialProfile(input: { name: "Broker login", type: BASIC, secret: { username: "u", password: "p" } }) { _id } }',
    ),
    'adminCreateCredentialProfile',
  );
  const broker = dataOf<{ _id: string }>(
    await admin(
      'mutation($c: ID!) { adminCreateBrokerProfile(input: { name: "Shop", brokerUrl: "mqtt://broker", credentialProfileId: $c }) { _id } }',
      {
        c: credential._id,
      },
    ),
    'adminCreateBrokerProfile',
  );
  // Creating changes nothing a running stream uses.
  expect(profileChanges()).toEqual([]);

  dataOf(
    await admin(
      'mutation($id: ID!) { adminUpdateCredentialProfile(_id: $id, input: { allowPublicUse: true }) { _id } }',
      {
        id: credential._id,
      },
    ),
    'adminUpdateCredentialProfile',
  );
  dataOf(
    await admin(
      'mutation($id: ID!) { adminUpdateBrokerProfile(_id: $id, input: { topicAllowlist: ["a/#"] }) { _id } }',
      {
        id: broker._id,
      },
    ),
    'adminUpdateBrokerProfile',
  );
  expect(profileChanges()).toEqual([
    { kind: 'profile', profileId: credential._id, profileType: 'credential', change: 'updated' },
    { kind: 'profile', profileId: broker._id, profileType: 'broker', change: 'updated' },
  ]);

  seen = [];
  // A refused change publishes nothing.
  const refused = await admin(
    'mutation($id: ID!) { adminUpdateBrokerProfile(_id: $id, input: { brokerUrl: "http://nope" }) { _id } }',
    { id: broker._id },
  );
  expect(errorCode(refused)).toBe('BAD_USER_INPUT');
  expect(profileChanges()).toEqual([]);

  dataOf(
    await admin('mutation($id: ID!) { adminDeleteCredentialProfile(_id: $id) { _id } }', {
      id: credential._id,
    }),
    'adminDeleteCredentialProfile',
  );
  expect(profileChanges()).toEqual([
    { kind: 'profile', profileId: credential._id, profileType: 'credential', change: 'deleted' },
    { kind: 'profile', profileId: broker._id, profileType: 'broker', change: 'updated' },
  ]);

  seen = [];
  dataOf(
    await admin('mutation($id: ID!) { adminDeleteBrokerProfile(_id: $id) { _id } }', { id: broker._id }),
    'adminDeleteBrokerProfile',
  );
  expect(profileChanges()).toEqual([
    { kind: 'profile', profileId: broker._id, profileType: 'broker', change: 'deleted' },
  ]);
});

it('publishes service-account updates and deletions', async () => {
  const account = dataOf<{ _id: string }>(
    await admin(
      'mutation { adminCreateServiceAccount(input: { name: "Kiosk", scopes: [DATASOURCE_MINT] }) { _id } }',
    ),
    'adminCreateServiceAccount',
  );
  dataOf(
    await admin(
      'mutation($id: ID!) { adminUpdateServiceAccount(_id: $id, input: { active: false }) { _id } }',
      {
        id: account._id,
      },
    ),
    'adminUpdateServiceAccount',
  );
  dataOf(
    await admin('mutation($id: ID!) { adminDeleteServiceAccount(_id: $id) { _id } }', { id: account._id }),
    'adminDeleteServiceAccount',
  );
  expect(seen.filter((change) => change.kind === 'serviceAccount')).toEqual([
    { kind: 'serviceAccount', serviceAccountId: account._id, change: 'updated' },
    { kind: 'serviceAccount', serviceAccountId: account._id, change: 'deleted' },
  ]);
});
