// The OPC UA server's application certificate: self-signed, made once in the data dir on first start
// (node-opcua's certificate store writes the key and certificate itself, without openssl or network),
// and the store in which client applications' certificates are trusted or rejected.
import { existsSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type * as NodeOpcua from 'node-opcua';

export interface ApplicationCertificate {
  store: NodeOpcua.OPCUACertificateManager;
  certificateFile: string;
  privateKeyFile: string;
  /** Milliseconds spent making the key and certificate; 0 when they were already there. */
  createdInMs: number;
}

/** `<data dir>/opcua/pki`: own/ (key, certificate), trusted/, rejected/, issuers/. */
export const pkiFolder = (dataDir: string) => join(dataDir, 'opcua', 'pki');

export async function applicationCertificate(
  opcua: typeof NodeOpcua,
  options: {
    dataDir: string;
    workstationId: string;
    name: string;
    applicationUri: string;
    /** The address the server listens on, named in the certificate when it is a specific one. */
    host: string;
  },
): Promise<ApplicationCertificate> {
  const started = performance.now();
  // A client application is trusted only once its certificate is moved from rejected/ to
  // trusted/certs/: a password alone should not let any program on the network in.
  const store = new opcua.OPCUACertificateManager({
    rootFolder: pkiFolder(options.dataDir),
    automaticallyAcceptUnknownCertificate: false,
    keySize: 2048,
  });
  await store.initialize();
  await chmod(store.privateKey, 0o600);
  // Named after the workstation: a renamed one gets a certificate carrying its new application URI.
  const certificateFile = join(store.rootDir, 'own', 'certs', `towpath-${options.workstationId}.pem`);
  let createdInMs = 0;
  if (!existsSync(certificateFile)) {
    const addresses = addressesFor(options.host);
    await store.createSelfSignedCertificate({
      applicationUri: options.applicationUri,
      subject: { commonName: `Towpath ${options.name}`.slice(0, 64), organization: 'Towpath' },
      dns: [...new Set([hostname(), 'localhost', ...addresses.names])],
      ip: addresses.ips,
      startDate: new Date(),
      validity: 3650,
      outputFile: certificateFile,
    });
    createdInMs = Math.round(performance.now() - started);
  }
  return { store, certificateFile, privateKeyFile: store.privateKey, createdInMs };
}

/** The names and IP addresses clients may use to reach a server listening on `host`. */
function addressesFor(host: string): { names: string[]; ips: string[] } {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare !== '0.0.0.0' && bare !== '::') {
    const isIp = /^[\d.]+$/.test(bare) || bare.includes(':');
    return isIp ? { names: [], ips: [bare] } : { names: [bare], ips: [] };
  }
  const ips = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && entry.family === 'IPv4')
    .map((entry) => entry?.address as string);
  return { names: [], ips: [...new Set(ips)] };
}
