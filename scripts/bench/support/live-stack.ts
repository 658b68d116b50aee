// What the live dashboard benchmarks stand on: a real Mosquitto, a core (`towpath serve`) whose
// gateway may reach it, an MQTT publisher and Chromium; stopped in the reverse order.
import { type Browser, chromium } from '@playwright/test';
import mqtt, { type MqttClient } from 'mqtt';
import { startCore } from '../../../server/testing/core.ts';
import { startMosquitto } from '../../../server/testing/mosquitto.ts';

export interface LiveStack {
  brokerUrl: string;
  lan: string;
  publisher: MqttClient;
  browser: Browser;
  stop(): Promise<void>;
}

export async function startLiveStack(admin: { email: string; password: string }): Promise<LiveStack> {
  const broker = await startMosquitto();
  const core = await startCore({
    CREATE_ADMIN: 'true',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    GATEWAY_EGRESS_ALLOW: `loopback:${broker.port}`,
  });
  const publisher = await mqtt.connectAsync(broker.url);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--disable-gpu'],
  });
  return {
    brokerUrl: broker.url,
    lan: core.lan,
    publisher,
    browser,
    async stop() {
      await browser.close();
      await publisher.endAsync(true);
      await core.stop();
      await broker.stop();
    },
  };
}
