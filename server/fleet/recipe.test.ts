// docs/fleet.md's Mosquitto recipe, run as written with Debian's Mosquitto: TLS with the shop CA it
// makes, one password per winder, the ACL that confines each winder to its own subtree and the
// viewer to reading, no anonymous clients.
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecipeBroker, recipeBlocks, startRecipeBroker } from './testing/recipe-broker.ts';

let broker: RecipeBroker;
beforeAll(async () => {
  broker = await startRecipeBroker();
}, 30_000);
afterAll(async () => {
  await broker?.stop();
});

function as(user: string | null, extra: IClientOptions = {}): IClientOptions {
  return {
    protocolVersion: 5,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ca: [readFileSync(broker.caFile)],
    ...(user ? { username: user, password: broker.passwords[user] } : {}),
    ...extra,
  };
}

async function publishAs(user: string, topic: string, payload = '{"probe":true}'): Promise<number | 'ok'> {
  const client = await mqtt.connectAsync(broker.url, as(user));
  try {
    await client.publishAsync(topic, payload, { qos: 1, retain: true });
    return 'ok';
  } catch (error) {
    return (error as { code: number }).code;
  } finally {
    await client.endAsync();
  }
}

async function retained(topic: string): Promise<string | null> {
  const client = await mqtt.connectAsync(broker.url, as('viewer'));
  try {
    const heard = new Promise<string>((resolve) => client.on('message', (_t, p) => resolve(p.toString())));
    await client.subscribeAsync(topic, { qos: 1 });
    return await Promise.race([heard, new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
  } finally {
    await client.endAsync();
  }
}

describe('the Mosquitto recipe of docs/fleet.md', () => {
  it('has the three blocks a shop copies, with the ACL the fleet relies on', () => {
    const blocks = recipeBlocks();
    expect(Object.keys(blocks).sort()).toEqual(['acl', 'setup.sh', 'towpath.conf']);
    expect(blocks.acl).toContain('pattern write towpath/v1/%u/#\npattern read towpath/v1/#\n');
    expect(blocks['towpath.conf']).toMatch(/^persistence true$/m);
    expect(blocks['towpath.conf']).toMatch(/^allow_anonymous false$/m);
    expect(Object.keys(broker.passwords).sort()).toEqual(['viewer', 'w01', 'w02', 'w03']);
    for (const password of Object.values(broker.passwords)) expect(password).toMatch(/^[0-9a-f]{48}$/);
  });

  it('lets a winder write its own state only, and the viewer read every one and write none', async () => {
    expect(await publishAs('w01', 'towpath/v1/w01/state', '{"mine":1}')).toBe('ok');
    // MQTT 5 says "not authorised" (0x87) and the broker keeps w01's state as it was.
    expect(await publishAs('w02', 'towpath/v1/w01/state', '{"forged":1}')).toBe(0x87);
    expect(await publishAs('viewer', 'towpath/v1/w01/state', '{"forged":2}')).toBe(0x87);
    // Nor can the viewer add a winder of its own name.
    expect(await publishAs('viewer', 'towpath/v1/viewer/state')).toBe(0x87);
    expect(await retained('towpath/v1/+/state')).toBe('{"mine":1}');
    expect(await retained('towpath/v1/viewer/state')).toBeNull();
  });

  it('refuses anonymous clients, wrong passwords and clients without the shop CA', async () => {
    await expect(mqtt.connectAsync(broker.url, as(null))).rejects.toMatchObject({ code: 135 });
    await expect(
      mqtt.connectAsync(broker.url, { ...as('w01'), password: 'not-the-password' }),
      // Mosquitto 2.0 says "not authorised" for a wrong password too.
    ).rejects.toMatchObject({ code: 135 });
    await expect(mqtt.connectAsync(broker.url, { ...as('w01'), ca: undefined })).rejects.toMatchObject({
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    // TLS only: nobody reaches the broker in plaintext.
    await expect(
      mqtt.connectAsync(broker.url.replace('mqtts:', 'mqtt:'), { ...as('w01'), connectTimeout: 2000 }),
    ).rejects.toBeTruthy();
  });
});
