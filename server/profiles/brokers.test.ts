// Broker profiles over real HTTP with a real SQLite file (spec §10.2, §14, §17).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, errorOf } from '../testing/graphql.ts';
import { type Fixture, startFixture } from '../testing/graphql-fixture.ts';

const FIELDS =
  '_id name protocol description brokerUrl tls credentialProfileId allowPublicUse topicAllowlist createdAt updatedAt';
const CREATE = `mutation($input: BrokerProfileCreateInput!) { adminCreateBrokerProfile(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: BrokerProfileUpdateInput!) { adminUpdateBrokerProfile(_id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = `mutation($id: ID!) { adminDeleteBrokerProfile(_id: $id) { ${FIELDS} } }`;
const LIST = `query($p: BrokerProfileProtocol) { brokerProfiles(protocol: $p) { ${FIELDS} } }`;
const CREATE_CREDENTIAL =
  'mutation($input: CredentialProfileCreateInput!) { adminCreateCredentialProfile(input: $input) { _id } }';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n';

type Broker = Record<string, unknown> & { _id: string; name: string };

let f: Fixture;
let basicId: string;
let bearerId: string;

const create = async (input: Record<string, unknown>) =>
  dataOf<Broker>(await f.call(CREATE, { input }, 'admin'), 'adminCreateBrokerProfile');

beforeAll(async () => {
  f = await startFixture();
  const credential = async (input: Record<string, unknown>) =>
    dataOf<{ _id: string }>(
      await f.call(CREATE_CREDENTIAL, { input }, 'admin'),
      'adminCreateCredentialProfile',
    )._id;
  basicId = await credential({
    name: 'Broker login',
    type: 'BASIC',
    secret: { username: 'u', password: 'p' },
  });
  bearerId = await credential({ name: 'Bearer', type: 'BEARER', secret: { token: 't' } });
});

afterAll(() => f?.ws.dispose());

describe('who may call', () => {
  it('lists for editors and admins; changes for admins only', async () => {
    expect(errorOf(await f.call(LIST, {}, 'anonymous'))?.code).toBe('UNAUTHENTICATED');
    expect(errorOf(await f.call(LIST, {}, 'sa'))?.code).toBe('UNAUTHENTICATED');
    expect(errorOf(await f.call(LIST, {}, 'viewer'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Editor role required',
    });
    expect(errorOf(await f.call(LIST, {}, 'editor'))).toBeUndefined();
    const input = { name: 'x', brokerUrl: 'mqtt://h' };
    expect(errorOf(await f.call(CREATE, { input }, 'editor'))).toEqual({
      code: 'FORBIDDEN',
      message: 'Admin role required',
    });
    expect(errorOf(await f.call(CREATE, { input }, 'anonymous'))?.code).toBe('UNAUTHENTICATED');
  });
});

describe('create', () => {
  it('fills the defaults', async () => {
    const broker = await create({ name: '  Shop floor  ', brokerUrl: 'mqtt://broker.shop:1883' });
    expect(broker).toMatchObject({
      name: 'Shop floor',
      protocol: 'MQTT',
      description: '',
      brokerUrl: 'mqtt://broker.shop:1883',
      tls: null,
      credentialProfileId: null,
      allowPublicUse: false,
      topicAllowlist: [],
    });
  });

  it('keeps TLS options, a BASIC credential and an allowlist', async () => {
    const broker = await create({
      name: 'Secure',
      brokerUrl: 'mqtts://10.0.0.5',
      tls: { rejectUnauthorized: false, servername: 'broker.shop', ca: PEM },
      credentialProfileId: basicId,
      allowPublicUse: true,
      topicAllowlist: ['winder/+/status', 'winder/line-3/#'],
    });
    expect(broker).toMatchObject({
      tls: { rejectUnauthorized: false, servername: 'broker.shop', ca: PEM },
      credentialProfileId: basicId,
      allowPublicUse: true,
      topicAllowlist: ['winder/+/status', 'winder/line-3/#'],
    });
  });

  const URL_ERROR = 'brokerUrl must be an mqtt:// or mqtts:// URL without credentials';
  it.each([
    [{ brokerUrl: 'http://broker' }, URL_ERROR],
    [{ brokerUrl: 'broker:1883' }, URL_ERROR],
    [{ brokerUrl: 'mqtt://user:pw@broker' }, URL_ERROR],
    [{ brokerUrl: 'mqtt://user@broker' }, URL_ERROR],
    [{ brokerUrl: 'mqtt://broker:0' }, URL_ERROR],
    [{ brokerUrl: 'mqtt://broker:70000' }, URL_ERROR],
    [{ brokerUrl: 'not a url' }, URL_ERROR],
    [{ name: ' ' }, 'Broker profile name must be 1–100 characters'],
    [{ name: 'n'.repeat(101) }, 'Broker profile name must be 1–100 characters'],
    [{ tls: { key: 'x' } }, 'Invalid tls: unknown key key'],
    [{ tls: { rejectUnauthorized: 'no' } }, 'Invalid tls: rejectUnauthorized must be a boolean'],
    [{ tls: { ca: 'not pem' } }, 'Invalid tls: ca must be a PEM certificate'],
    [
      { topicAllowlist: ['ok/#', 'bad/#/x'] },
      'Invalid topicAllowlist entry at index 1: not an MQTT topic filter',
    ],
    [{ topicAllowlist: [''] }, 'Invalid topicAllowlist entry at index 0: not an MQTT topic filter'],
  ])('refuses %j', async (override, message) => {
    const input = { name: 'Refused', brokerUrl: 'mqtt://broker', ...override };
    expect(errorOf(await f.call(CREATE, { input }, 'admin'))).toEqual({ code: 'BAD_USER_INPUT', message });
  });

  it('needs an existing BASIC credential profile and a free name', async () => {
    const input = { name: 'Cred', brokerUrl: 'mqtt://broker' };
    expect(
      errorOf(await f.call(CREATE, { input: { ...input, credentialProfileId: 'a'.repeat(24) } }, 'admin')),
    ).toEqual({
      code: 'NOT_FOUND',
      message: 'Credential profile not found',
    });
    expect(
      errorOf(await f.call(CREATE, { input: { ...input, credentialProfileId: bearerId } }, 'admin')),
    ).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'Broker profiles accept only BASIC credential profiles',
    });
    expect(errorOf(await f.call(CREATE, { input: { ...input, name: 'SHOP FLOOR' } }, 'admin'))).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'A broker profile with this name already exists',
    });
  });

  it('lists by name, filtered by protocol when given', async () => {
    const all = dataOf<Broker[]>(await f.call(LIST, {}, 'editor'), 'brokerProfiles').map((b) => b.name);
    expect(all).toEqual(['Secure', 'Shop floor']);
    const mqtt = dataOf<Broker[]>(await f.call(LIST, { p: 'MQTT' }, 'editor'), 'brokerProfiles');
    expect(mqtt.map((b) => b.name)).toEqual(all);
  });
});

describe('update and delete', () => {
  it('keeps omitted fields, clears with null, and audits the changed fields', async () => {
    const broker = await create({
      name: 'Changing',
      brokerUrl: 'mqtt://a',
      tls: { servername: 'a' },
      credentialProfileId: basicId,
    });
    const updated = dataOf<Broker>(
      await f.call(
        UPDATE,
        { id: broker._id, input: { description: 'Cell 2', tls: null, credentialProfileId: null } },
        'admin',
      ),
      'adminUpdateBrokerProfile',
    );
    expect(updated).toMatchObject({
      name: 'Changing',
      brokerUrl: 'mqtt://a',
      description: 'Cell 2',
      tls: null,
      credentialProfileId: null,
    });
    expect(
      errorOf(await f.call(UPDATE, { id: broker._id, input: { credentialProfileId: bearerId } }, 'admin'))
        ?.message,
    ).toBe('Broker profiles accept only BASIC credential profiles');
    expect(
      errorOf(await f.call(UPDATE, { id: broker._id, input: { brokerUrl: 'ws://a' } }, 'admin'))?.code,
    ).toBe('BAD_USER_INPUT');
    // The addressed profile is looked for before its input is judged (§4's precedence).
    for (const input of [{}, { brokerUrl: 'ws://a' }])
      expect(errorOf(await f.call(UPDATE, { id: 'c'.repeat(24), input }, 'admin'))).toEqual({
        code: 'NOT_FOUND',
        message: 'Broker profile not found',
      });
    const events = await f.call(
      '{ adminAuditEvents(actionPrefix: "broker_profile.updated") { targetId metadata } }',
      {},
      'admin',
    );
    expect(dataOf<{ targetId: string; metadata: unknown }[]>(events, 'adminAuditEvents')[0]).toEqual({
      targetId: broker._id,
      metadata: { name: 'Changing', fields: ['description', 'tls', 'credentialProfileId'] },
    });
  });

  it('deletes, returning the profile; a second delete is NOT_FOUND', async () => {
    const broker = await create({ name: 'Gone', brokerUrl: 'mqtt://gone' });
    expect(
      dataOf<Broker>(await f.call(DELETE, { id: broker._id }, 'admin'), 'adminDeleteBrokerProfile').name,
    ).toBe('Gone');
    expect(errorOf(await f.call(DELETE, { id: broker._id }, 'admin'))).toEqual({
      code: 'NOT_FOUND',
      message: 'Broker profile not found',
    });
    const events = await f.call(
      '{ adminAuditEvents(actionPrefix: "broker_profile.") { action } }',
      {},
      'admin',
    );
    expect(dataOf<{ action: string }[]>(events, 'adminAuditEvents').map((e) => e.action)).toContain(
      'broker_profile.deleted',
    );
  });
});
