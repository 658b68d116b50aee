// Test support: a node-opcua client signed in anonymously over an unencrypted channel, as a tool on
// the winder's own PC would be when OPCUA_ALLOW_ANONYMOUS=1. Its certificate store lives in
// `folder`, never in the user's home.
import {
  type ClientSession,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAClient,
  SecurityPolicy,
  UserTokenType,
} from 'node-opcua';

export interface AnonymousClient {
  session: ClientSession;
  /** Closes the session and the connection and releases the certificate store. */
  close(): Promise<void>;
}

export async function anonymousClient(endpoint: string, folder: string): Promise<AnonymousClient> {
  const pki = new OPCUACertificateManager({ rootFolder: folder });
  const client = OPCUAClient.create({
    endpointMustExist: false,
    clientCertificateManager: pki,
    connectionStrategy: { maxRetry: 0 },
    securityMode: MessageSecurityMode.None,
    securityPolicy: SecurityPolicy.None,
  });
  const close = async () => {
    await client.disconnect();
    await pki.dispose();
  };
  try {
    await client.connect(endpoint);
    const session = await client.createSession({ type: UserTokenType.Anonymous });
    return {
      session,
      close: async () => {
        await session.close().catch(() => {});
        await close();
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
