// Test support: the shop's broker exactly as docs/fleet.md tells a shop to set it up. The three code
// blocks marked `<!-- recipe: … -->` are taken from the page and run as they are: the setup script
// (with its folder and host name pointed at this test's), the ACL, and the broker settings. Only what
// Debian's main mosquitto.conf adds is added here (where persistence is kept), plus what a test needs
// (the listener's port, running as this user, logging to stderr).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../testing/free-port.ts';
import { type Mosquitto, runMosquitto } from '../../testing/mosquitto.ts';
import { REPO_ROOT } from '../../testing/process.ts';

export interface RecipeBroker extends Mosquitto {
  url: string;
  caFile: string;
  /** The passwords the setup script made, by user (w01, w02, w03, viewer). */
  passwords: Record<string, string>;
  /** Where the broker keeps its persistence file. */
  persistenceFile: string;
}

const RECIPE_DIR = '/etc/mosquitto/towpath';

/** The code blocks of docs/fleet.md marked `<!-- recipe: <name> -->`, by name. */
export function recipeBlocks(markdown = readFileSync(join(REPO_ROOT, 'docs', 'fleet.md'), 'utf8')) {
  const blocks: Record<string, string> = {};
  for (const match of markdown.matchAll(/<!-- recipe: (\S+) -->\n```[a-z]*\n([\s\S]*?)\n```/g))
    blocks[match[1] as string] = `${match[2]}\n`;
  return blocks;
}

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from))
    throw new Error(`docs/fleet.md no longer has "${from}" where the test expects it`);
  return text.replace(from, to);
}

export async function startRecipeBroker(): Promise<RecipeBroker> {
  const blocks = recipeBlocks();
  const setup = blocks['setup.sh'];
  const acl = blocks.acl;
  const conf = blocks['towpath.conf'];
  if (!setup || !acl || !conf) throw new Error('docs/fleet.md lost one of its recipe blocks');
  const dir = await mkdtemp(join(tmpdir(), 'towpath-recipe-'));
  let script = replaceOnce(setup, `DIR=${RECIPE_DIR}`, `DIR=${dir}`);
  script = replaceOnce(script, 'HOST=hub.shop.lan', 'HOST=localhost');
  execFileSync('sh', ['-e', '-c', script], { stdio: 'pipe' });
  await writeFile(join(dir, 'acl'), acl);
  const port = await freePort();
  const settings = [
    replaceOnce(conf, 'listener 8883', `listener ${port}`).replaceAll(RECIPE_DIR, dir),
    // Debian's /etc/mosquitto/mosquitto.conf says where persistence is kept.
    `persistence_location ${dir}/`,
    // Started as root, Mosquitto would drop to a `mosquitto` user that cannot enter this test's folder.
    `user ${userInfo().username}`,
    'log_dest stderr',
    'log_type error',
    'log_type warning',
  ].join('\n');
  const config = join(dir, 'towpath.conf');
  await writeFile(config, `${settings}\n`);
  const passwords: Record<string, string> = {};
  for (const line of (await readFile(join(dir, 'passwords.txt'), 'utf8')).trim().split('\n')) {
    const [user, password] = line.split(' ');
    if (user && password) passwords[user] = password;
  }
  return {
    ...(await runMosquitto(config, port, dir)),
    url: `mqtts://localhost:${port}`,
    caFile: join(dir, 'ca.crt'),
    passwords,
    persistenceFile: join(dir, 'mosquitto.db'),
  };
}
