// The read-only OPC UA server as a shop's SCADA meets it: a real node-opcua client against a real
// workstation whose machine process drives the fake Marlin on a socat pseudo-terminal. It browses
// the Machinery nodes, signs in over SignAndEncrypt, follows a job, and is refused every change.
import { X509Certificate } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AttributeIds,
  type ClientSession,
  type ClientSubscription,
  DataType,
  EndpointDescription,
  MessageSecurityMode,
  NodeClass,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
  StatusCodes,
  TimestampsToReturn,
  type UserIdentityInfo,
  UserTokenPolicy,
  UserTokenType,
} from 'node-opcua';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../../bridge/version.ts';
import { eventually } from '../../../engine/testing/eventually.ts';
import { attachFakeMarlin, type FakeMarlinOnPort } from '../../machine/testing/fake-marlin-port.ts';
import { createPtyPair, type PtyPair } from '../../machine/testing/pty-pair.ts';
import { removeTempDir, startTestWorkstation, type TestWorkstation } from '../../testing/workstation.ts';
import { pkiFolder } from './certificate.ts';

const PASSWORD = 'shop-scada-password';
const USER: UserIdentityInfo = { type: UserTokenType.UserName, userName: 'scada', password: PASSWORD };
const TIMINGS = { bootIdleMs: 50, syncTimeoutMs: 2000, identifyIdleMs: 1000, idleTimeoutMs: 5000 };
const MACHINERY = 'http://opcfoundation.org/UA/Machinery/';
const DI = 'http://opcfoundation.org/UA/DI/';
const ENCRYPTED = {
  securityMode: MessageSecurityMode.SignAndEncrypt,
  securityPolicy: SecurityPolicy.Basic256Sha256,
};

let pair: PtyPair;
let marlin: FakeMarlinOnPort;
let ws: TestWorkstation;
let endpoint: string;
let clientPki: OPCUACertificateManager;
let serverCertificate: X509Certificate;
const open: { close(): Promise<void> }[] = [];

const SCADA_URI = 'urn:towpath-test:shop-scada';
/** A browse result's every field: reference type, direction, node class, names, type definition. */
const ALL_REFERENCE_FIELDS = 0x3f;

beforeAll(async () => {
  pair = await createPtyPair();
  marlin = await attachFakeMarlin(pair.far, { ackDelayMs: 2 });
  // The shop's SCADA, set up as its operator would: its certificate is in the workstation's trusted
  // folder from the start (the admin's move at run time is the first test's), and it trusts the
  // workstation's certificate once that exists.
  const root = await mkdtemp(join(tmpdir(), 'towpath-test-'));
  clientPki = await clientStore(join(root, 'scada-pki'));
  const scadaCertificate = join(clientPki.rootDir, 'own', 'certs', 'client_certificate.pem');
  await clientPki.createSelfSignedCertificate({
    applicationUri: SCADA_URI,
    subject: { commonName: 'Shop SCADA' },
    dns: ['localhost'],
    startDate: new Date(),
    validity: 30,
    outputFile: scadaCertificate,
  });
  const trusted = join(pkiFolder(join(root, 'data')), 'trusted', 'certs');
  await mkdir(trusted, { recursive: true });
  await copyFile(scadaCertificate, join(trusted, 'shop-scada.pem'));

  ws = await startTestWorkstation(
    {
      OPCUA_PORT: '0',
      OPCUA_HOST: '127.0.0.1',
      OPCUA_USERNAME: 'scada',
      OPCUA_PASSWORD: PASSWORD,
      FLEET_WORKSTATION_ID: 'w01',
      FLEET_NAME: 'Winder 1',
    },
    { root, machine: { timings: TIMINGS } },
  );
  const status = await ws.opcua.whenStarted();
  expect(status).toMatchObject({ enabled: true, clients: 0, lastError: null });
  endpoint = status.endpoint as string;
  expect(endpoint).toMatch(/^opc\.tcp:\/\/127\.0\.0\.1:\d+$/);

  const pem = await readFile(join(pkiFolder(ws.dataDir), 'own', 'certs', 'towpath-w01.pem'), 'utf8');
  serverCertificate = new X509Certificate(pem);
  await clientPki.trustCertificate(serverCertificate.raw);
}, 60_000);

afterAll(async () => {
  for (const item of open.splice(0).reverse()) await item.close().catch(() => {});
  for (const pki of pkis) await pki.dispose();
  await ws?.dispose();
  await marlin?.close();
  await pair?.dispose();
  if (ws) await removeTempDir(ws.root);
});

interface ConnectOptions {
  user?: UserIdentityInfo;
  security?: { securityMode: MessageSecurityMode; securityPolicy: SecurityPolicy };
  pki?: OPCUACertificateManager;
  /** Runs between connecting and creating the session. */
  beforeSession?: (client: OPCUAClient) => void;
}

async function connect(options: ConnectOptions = {}): Promise<ClientSession> {
  const client = OPCUAClient.create({
    applicationName: 'Shop SCADA',
    applicationUri: SCADA_URI,
    endpointMustExist: false,
    clientCertificateManager: options.pki ?? clientPki,
    connectionStrategy: { maxRetry: 0 },
    ...(options.security ?? ENCRYPTED),
  });
  await client.connect(endpoint);
  open.push({ close: () => client.disconnect() });
  options.beforeSession?.(client);
  const session = await client.createSession(options.user ?? USER);
  open.push({ close: () => session.close() });
  return session;
}

const pkis: OPCUACertificateManager[] = [];

/** A client application's own certificate store. */
async function clientStore(folder: string): Promise<OPCUACertificateManager> {
  const pki = new OPCUACertificateManager({
    rootFolder: folder,
    automaticallyAcceptUnknownCertificate: false,
  });
  pkis.push(pki);
  await pki.initialize();
  return pki;
}

/** Tries until a session opens: the server's store notices a trusted certificate on its own, soon. */
async function connected(attempt: () => Promise<ClientSession>): Promise<void> {
  await eventually(async () => (await attempt().catch(() => null)) !== null, 20_000, 250);
}

/** Moves every certificate the server rejected into its trusted folder, as the docs tell an admin. */
async function trustRejectedClients(dataDir: string): Promise<void> {
  const pki = pkiFolder(dataDir);
  const rejected = await readdir(join(pki, 'rejected'));
  expect(rejected.length).toBeGreaterThan(0);
  for (const file of rejected) await rename(join(pki, 'rejected', file), join(pki, 'trusted', 'certs', file));
}

/** Namespace indexes by URI, as this server numbered them. */
async function namespaces(session: ClientSession): Promise<{ machinery: number; di: number; own: number }> {
  const array = await session.readNamespaceArray();
  return {
    machinery: array.indexOf(MACHINERY),
    di: array.indexOf(DI),
    own: array.indexOf('urn:towpath:w01'),
  };
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('the OPC UA server', () => {
  it('lets an unknown client application in only once its certificate is trusted, and signs the user in', async () => {
    expect(serverCertificate.subject).toContain('CN=Towpath Winder 1');
    expect(serverCertificate.subjectAltName).toContain('URI:urn:towpath:w01');
    const before = ws.opcua.status().clients;
    const newcomer = await clientStore(join(ws.root, 'newcomer-pki'));
    await newcomer.trustCertificate(serverCertificate.raw);
    // Refused, whatever the password; the server keeps its certificate in rejected/ for the admin.
    await expect(connect({ pki: newcomer })).rejects.toThrow(/BadSecurityChecksFailed/);
    await trustRejectedClients(ws.dataDir);
    // No restart needed.
    await connected(() => connect({ pki: newcomer }));
    expect(ws.opcua.status().clients).toBe(before + 1);

    // Every endpoint signs and encrypts, and none lets a client in without a user.
    const discovery = OPCUAClient.create({ endpointMustExist: false, clientCertificateManager: clientPki });
    await discovery.connect(endpoint);
    const endpoints = await discovery.getEndpoints();
    await discovery.disconnect();
    const sessionEndpoints = endpoints.filter((e) => e.securityMode !== MessageSecurityMode.None);
    expect(sessionEndpoints.map((e) => MessageSecurityMode[e.securityMode])).toEqual(
      sessionEndpoints.map(() => 'SignAndEncrypt'),
    );
    expect(endpoints.flatMap((e) => e.userIdentityTokens ?? []).map((t) => t.tokenType)).not.toContain(
      UserTokenType.Anonymous,
    );
  }, 60_000);

  it('refuses anonymous clients, a wrong password and an unencrypted channel', async () => {
    // The endpoints offer no anonymous sign-in, so node-opcua's client does not even try...
    await expect(connect({ user: { type: UserTokenType.Anonymous } })).rejects.toThrow(
      /Cannot find ANONYMOUS/,
    );
    // ...and a client that sends an anonymous token anyway is refused by the server.
    await expect(
      connect({
        user: { type: UserTokenType.Anonymous },
        // The endpoints the client fetched while connecting, edited before it picks one.
        beforeSession: (client) => {
          const fetched = client as unknown as { _serverEndpoints: EndpointDescription[] };
          for (const described of fetched._serverEndpoints)
            described.userIdentityTokens = [
              ...(described.userIdentityTokens ?? []),
              new UserTokenPolicy({ policyId: 'anonymous', tokenType: UserTokenType.Anonymous }),
            ];
        },
      }),
    ).rejects.toThrow(/BadIdentityTokenInvalid/);
    await expect(connect({ user: { ...USER, password: 'not-the-password' } })).rejects.toThrow(
      /BadUserAccessDenied/,
    );
    // No endpoint offers an unencrypted session, so the client finds none to use...
    const plain = { securityMode: MessageSecurityMode.None, securityPolicy: SecurityPolicy.None };
    await expect(connect({ security: plain })).rejects.toThrow(/End point must exist/);
    // ...and one that asks for a session over its unencrypted discovery channel anyway is refused.
    await expect(
      connect({
        security: plain,
        beforeSession: (client) => {
          const fetched = client as unknown as { _serverEndpoints: EndpointDescription[] };
          const [first] = fetched._serverEndpoints;
          fetched._serverEndpoints.push(
            new EndpointDescription({
              ...first,
              securityMode: plain.securityMode,
              securityPolicyUri: plain.securityPolicy,
            }),
          );
        },
      }),
    ).rejects.toThrow(/BadSecurityModeRejected/);
  }, 60_000);

  it('shows the machine under Machines in the OPC 40001-1 shape', async () => {
    const session = await connect();
    const ns = await namespaces(session);
    expect(Object.values(ns).every((index) => index > 0)).toBe(true);

    const machines = await session.browse(`ns=${ns.machinery};i=1001`);
    expect(machines.statusCode).toBe(StatusCodes.Good);
    const machine = machines.references?.find((r) => r.browseName.name === 'Winder 1');
    expect(machine?.nodeId.toString()).toBe(`ns=${ns.own};s=w01`);

    const children = await session.browse(`ns=${ns.own};s=w01`);
    const names = (children.references ?? []).map(
      (r) => `${r.browseName.namespaceIndex}:${r.browseName.name}`,
    );
    expect(names).toEqual(
      expect.arrayContaining([
        `${ns.di}:Identification`,
        `${ns.di}:MachineryBuildingBlocks`,
        ...[
          'Status',
          'JobName',
          'Progress',
          'LinesSent',
          'LinesTotal',
          'RemainingSeconds',
          'Layer',
          'LastError',
        ].map((name) => `${ns.own}:${name}`),
      ]),
    );
    // The building blocks are add-ins of the folder, each of the type OPC 40001-1 gives it.
    const blocks = await session.browse({
      nodeId: `ns=${ns.own};s=w01.MachineryBuildingBlocks`,
      referenceTypeId: 'HasAddIn',
      includeSubtypes: false,
      resultMask: ALL_REFERENCE_FIELDS,
    });
    expect((blocks.references ?? []).map((r) => r.browseName.name).sort()).toEqual([
      'Identification',
      'MachineryItemState',
    ]);
    const types = await Promise.all(
      (blocks.references ?? []).map(async (r) => {
        const found = await session.browse({
          nodeId: r.nodeId,
          referenceTypeId: 'HasTypeDefinition',
          resultMask: ALL_REFERENCE_FIELDS,
        });
        const type = found.references?.[0];
        return `${r.browseName.name}: ${type?.nodeId.namespace === ns.machinery ? '' : '?'}${type?.browseName.name}`;
      }),
    );
    expect(types.sort()).toEqual([
      'Identification: MachineIdentificationType',
      'MachineryItemState: MachineryItemState_StateMachineType',
    ]);

    const path = await session.translateBrowsePath(
      ['Manufacturer', 'Model', 'SerialNumber', 'SoftwareRevision'].map((name) => ({
        startingNode: `ns=${ns.own};s=w01.Identification`,
        relativePath: { elements: [{ targetName: { namespaceIndex: ns.di, name }, includeSubtypes: true }] },
      })),
    );
    const values = await session.read(
      path.map((p) => ({
        nodeId: p.targets?.[0]?.targetId.toString() ?? '',
        attributeId: AttributeIds.Value,
      })),
    );
    expect(values.map((v) => v.value.value?.text ?? v.value.value)).toEqual([
      'Towpath',
      'Filament winder',
      'w01',
      VERSION,
    ]);

    // No machine attached yet: not available.
    expect(await currentState(session, ns)).toBe('NotAvailable');
  }, 60_000);

  it('has no method and no writable variable, and refuses every write and call', async () => {
    const session = await connect();
    const ns = await namespaces(session);
    // Everything under the machine, followed down every forward hierarchical reference.
    const found: { nodeId: string; nodeClass: NodeClass }[] = [];
    const queue = [`ns=${ns.own};s=w01`];
    const seen = new Set(queue);
    while (queue.length > 0) {
      const result = await session.browse(queue.shift() as string);
      for (const r of result.references ?? []) {
        const id = r.nodeId.toString();
        if (seen.has(id) || r.nodeClass === NodeClass.ObjectType || r.nodeClass === NodeClass.VariableType)
          continue;
        seen.add(id);
        found.push({ nodeId: id, nodeClass: r.nodeClass });
        // Only the machine's own instance nodes, not the type system they point into.
        if (id.startsWith(`ns=${ns.own};`)) queue.push(id);
      }
    }
    expect(found.filter((n) => n.nodeClass === NodeClass.Method)).toEqual([]);
    const variables = found.filter((n) => n.nodeClass === NodeClass.Variable);
    expect(variables.length).toBeGreaterThan(15);
    const access = await session.read(
      variables.flatMap(({ nodeId }) => [
        { nodeId, attributeId: AttributeIds.AccessLevel },
        { nodeId, attributeId: AttributeIds.UserAccessLevel },
      ]),
    );
    // Bit 1 (CurrentWrite) clear on every one of them, for the protocol and for this user.
    expect(access.filter((v) => (v.value.value & 0b10) !== 0)).toEqual([]);

    // Writes, to the machine's variables, its identification and the standard Server object alike.
    const writes = await session.write([
      {
        nodeId: `ns=${ns.own};s=w01.Progress`,
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.Double, value: 50 } },
      },
      {
        nodeId: `ns=${ns.own};s=w01.LastError`,
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.String, value: 'x' } },
      },
      {
        nodeId: `ns=${ns.own};s=w01`,
        attributeId: AttributeIds.DisplayName,
        value: { value: { dataType: DataType.LocalizedText, value: { text: 'x' } } },
      },
      {
        nodeId: 'ns=0;i=2267',
        attributeId: AttributeIds.Value,
        value: { value: { dataType: DataType.Byte, value: 1 } },
      },
    ]);
    expect(writes.map((s) => s.name)).toEqual([
      'BadNotWritable',
      'BadNotWritable',
      'BadNotWritable',
      'BadNotWritable',
    ]);
    // Calls: a standard method of the Server object, and anything on the machine.
    const calls = await session.call([
      {
        objectId: 'ns=0;i=2253',
        methodId: 'ns=0;i=11492',
        inputArguments: [{ dataType: DataType.UInt32, value: 1 }],
      },
      { objectId: `ns=${ns.own};s=w01`, methodId: `ns=${ns.own};s=w01.Start` },
    ]);
    expect(calls.map((c) => c.statusCode.name)).toEqual(['BadUserAccessDenied', 'BadUserAccessDenied']);
    // And what was not written is still what the feed says.
    const progress = await session.read({
      nodeId: `ns=${ns.own};s=w01.Progress`,
      attributeId: AttributeIds.Value,
    });
    expect(progress.value.value).not.toBe(50);
  }, 60_000);

  it('follows a job: NotExecuting → Executing → NotExecuting while progress climbs', async () => {
    const session = await connect();
    const ns = await namespaces(session);
    const subscription = await session.createSubscription2({
      requestedPublishingInterval: 100,
      requestedMaxKeepAliveCount: 20,
      publishingEnabled: true,
    });
    open.push({ close: () => subscription.terminate() });
    const states = await watch(subscription, `ns=${ns.own};s=w01.MachineryItemState`, ns);
    const progress = await watch(subscription, `ns=${ns.own};s=w01.Progress`);
    await eventually(() => states.includes('NotAvailable'), 5000);

    expect((await post(`${ws.urls.lan}/api/machine/connect`, { port: pair.near })).status).toBe(200);
    await eventually(() => states.at(-1) === 'NotExecuting', 10_000);
    const lines = Array.from({ length: 1500 }, (_, i) => `G1 X${i % 100} A${i % 360}`);
    // Three layers as the planner marks them: the Layer variables follow the acknowledged line.
    const gcode = lines.map((line, i) =>
      i % 500 === 0 ? `; Layer ${i / 500 + 1} of 3: hoop\n${line}` : line,
    );
    expect((await post(`${ws.urls.lan}/api/machine/job`, { gcode: gcode.join('\n') })).status).toBe(202);
    await eventually(() => states.at(-1) === 'Executing', 10_000);
    await marlin.fake.until(() => marlin.fake.commands.length >= lines.length, 60_000, 'the job to finish');
    await eventually(() => states.at(-1) === 'NotExecuting', 10_000);

    // The states in order, each once: not available, idle, winding, idle again.
    expect(states.filter((s, i) => s !== states[i - 1])).toEqual([
      'NotAvailable',
      'NotExecuting',
      'Executing',
      'NotExecuting',
    ]);
    const percents = progress.filter((p): p is number => typeof p === 'number');
    expect(percents.filter((p) => p > 0 && p < 100).length).toBeGreaterThan(2);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(100);
    const counts = await session.read(
      ['LinesSent', 'LinesTotal', 'Layer', 'LayerCount'].map((name) => ({
        nodeId: `ns=${ns.own};s=w01.${name}`,
        attributeId: AttributeIds.Value,
      })),
    );
    expect(counts.map((c) => c.value.value)).toEqual([1500, 1500, 3, 3]);
  }, 120_000);
});

async function currentState(session: ClientSession, ns: { machinery: number; own: number }): Promise<string> {
  const dv = await session.read({
    nodeId: await currentStateNode(session, `ns=${ns.own};s=w01.MachineryItemState`),
    attributeId: AttributeIds.Value,
  });
  return dv.value.value.text;
}

async function currentStateNode(session: ClientSession, stateMachine: string): Promise<string> {
  const [path] = await session.translateBrowsePath([
    {
      startingNode: stateMachine,
      relativePath: {
        elements: [{ targetName: { namespaceIndex: 0, name: 'CurrentState' }, includeSubtypes: true }],
      },
    },
  ]);
  return path?.targets?.[0]?.targetId.toString() ?? '';
}

/** Every value a monitored item reports, in order: the state machine's CurrentState text, or the variable's value. */
async function watch(
  subscription: ClientSubscription,
  nodeId: string,
  stateMachineOf?: unknown,
): Promise<unknown[]> {
  const session = subscription.session as ClientSession;
  const target = stateMachineOf ? await currentStateNode(session, nodeId) : nodeId;
  const seen: unknown[] = [];
  const item = await subscription.monitor(
    { nodeId: target, attributeId: AttributeIds.Value },
    { samplingInterval: 0, discardOldest: false, queueSize: 1000 },
    TimestampsToReturn.Neither,
  );
  item.on('changed', (value) => {
    const v = value.value.value;
    seen.push(stateMachineOf ? v?.text : v);
  });
  return seen;
}
