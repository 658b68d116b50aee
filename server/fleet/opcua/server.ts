// The read-only OPC UA server (node-opcua), loaded only when OPCUA_PORT is set. Read-only twice over:
// every variable of the machine is CurrentRead, and the Write and Call services themselves refuse
// every operation, so no node of the standard address space can be changed or invoked either.
// node-opcua itself is imported dynamically here too: bundled into the Electron main process, a
// static import would be hoisted to the top of the bundle and loaded at every start.
import { createHash, timingSafeEqual } from 'node:crypto';
import { format } from 'node:util';
import type * as NodeOpcua from 'node-opcua';
import { VERSION } from '../../../bridge/version.ts';
import type { OpcuaConfig } from '../../config/opcua.ts';
import type { Logger } from '../../log.ts';
import type { MachineValueSource } from '../publisher.ts';
import { applicationCertificate } from './certificate.ts';
import { MachineryModel } from './machinery.ts';

export interface RunningOpcuaServer {
  endpoint: string;
  /** Milliseconds spent creating the application certificate at this start (0 when it existed). */
  certificateMs: number;
  sessions(): number;
  stop(): Promise<void>;
}

type WriteMessage = Parameters<NodeOpcua.OPCUAServer['_on_WriteRequest']>[0];
type CallMessage = Parameters<NodeOpcua.OPCUAServer['_on_CallRequest']>[0];
type Channel = Parameters<NodeOpcua.OPCUAServer['_on_WriteRequest']>[1];
type X509Check = Parameters<NodeOpcua.OPCUAServer['isValidX509IdentityToken']>;

/** An OPCUAServer that answers every Write with BadNotWritable and every Call with BadUserAccessDenied. */
function readOnlyServer(opcua: typeof NodeOpcua) {
  const { CallMethodResult, CallResponse, OPCUAServer, StatusCodes, WriteResponse } = opcua;
  return class ReadOnlyServer extends OPCUAServer {
    // node-opcua offers user certificates on every endpoint; the one way in is the configured user.
    protected override isValidX509IdentityToken(...args: X509Check): void {
      const callback = args[5];
      callback(null, StatusCodes.BadIdentityTokenRejected);
    }

    protected override _on_WriteRequest(message: WriteMessage, channel: Channel): void {
      const request = message.request as NodeOpcua.WriteRequest;
      void this._apply_on_SessionObject(
        WriteResponse,
        message,
        channel,
        (_session, sendResponse, sendError) => {
          const nodes = request.nodesToWrite ?? [];
          if (nodes.length === 0) return sendError(StatusCodes.BadNothingToDo);
          sendResponse(new WriteResponse({ results: nodes.map(() => StatusCodes.BadNotWritable) }));
        },
      );
    }

    protected override _on_CallRequest(message: CallMessage, channel: Channel): void {
      const request = message.request as NodeOpcua.CallRequest;
      void this._apply_on_SessionObject(
        CallResponse,
        message,
        channel,
        (_session, sendResponse, sendError) => {
          const methods = request.methodsToCall ?? [];
          if (methods.length === 0) return sendError(StatusCodes.BadNothingToDo);
          sendResponse(
            new CallResponse({
              results: methods.map(
                () => new CallMethodResult({ statusCode: StatusCodes.BadUserAccessDenied }),
              ),
            }),
          );
        },
      );
    }
  };
}

export async function startOpcuaServer(options: {
  config: OpcuaConfig;
  dataDir: string;
  feed: MachineValueSource;
  /** The OPC UA server's own logger (component opcua). */
  logger: Logger;
}): Promise<RunningOpcuaServer> {
  const { config, feed, logger } = options;
  const opcua = await import('node-opcua');
  const { MessageSecurityMode, SecurityPolicy, UserNameIdentityToken, nodesets } = opcua;
  routeLibraryLogs(opcua, logger);
  const applicationUri = `urn:towpath:${config.workstationId}`;
  const certificate = await applicationCertificate(opcua, {
    dataDir: options.dataDir,
    workstationId: config.workstationId,
    name: config.name,
    applicationUri,
    host: config.host,
  });
  const bare = config.host.replace(/^\[|\]$/g, '');
  const anyAddress = bare === '0.0.0.0' || bare === '::';
  const ReadOnlyServer = readOnlyServer(opcua);
  const server = new ReadOnlyServer({
    port: config.port,
    host: bare,
    // On a specific address the endpoint names it; on all of them, this PC's name.
    ...(anyAddress ? {} : { hostname: bare.includes(':') ? `[${bare}]` : bare }),
    nodesets: [nodesets.standard, nodesets.di, nodesets.ia, nodesets.machinery],
    serverCertificateManager: certificate.store,
    // Never consulted (user certificates are refused), but given so node-opcua makes no store of
    // its own in the user's home folder.
    userCertificateManager: certificate.store,
    certificateFile: certificate.certificateFile,
    privateKeyFile: certificate.privateKeyFile,
    serverInfo: {
      applicationUri,
      productUri: 'urn:towpath',
      applicationName: { text: `Towpath ${config.name}` },
    },
    buildInfo: { productName: 'Towpath', manufacturerName: 'Towpath', softwareVersion: VERSION },
    securityModes: config.allowAnonymous
      ? [MessageSecurityMode.SignAndEncrypt, MessageSecurityMode.None]
      : [MessageSecurityMode.SignAndEncrypt],
    securityPolicies: [
      SecurityPolicy.Basic256Sha256,
      SecurityPolicy.Aes128_Sha256_RsaOaep,
      SecurityPolicy.Aes256_Sha256_RsaPss,
      ...(config.allowAnonymous ? [SecurityPolicy.None] : []),
    ],
    allowAnonymous: config.allowAnonymous,
    userManager: { isValidUser: userCheck(config.user) },
  });
  let unsubscribe = () => {};
  // Whatever goes wrong from here on, nothing is left listening or watching the certificate folder.
  try {
    await server.initialize();
    const model = new MachineryModel(
      opcua,
      server.engine.addressSpace as NonNullable<typeof server.engine.addressSpace>,
      {
        workstationId: config.workstationId,
        name: config.name,
        model: config.model,
        softwareRevision: VERSION,
        productInstanceUri: applicationUri,
      },
      feed.value,
    );
    let failedUpdate = false;
    unsubscribe = feed.onChange((value) => {
      // The feed's other listeners (the MQTT publisher, dashboards) must never hear of a failure here.
      try {
        model.update(value);
      } catch (error) {
        if (!failedUpdate)
          logger.error({ event: 'opcua.error', err: error }, 'opcua.error: a value was not served');
        failedUpdate = true;
      }
    });
    server.on('session_activated', (session, token) =>
      logger.info(
        {
          event: 'opcua.session',
          user: token instanceof UserNameIdentityToken ? token.userName : 'anonymous',
          securityMode: MessageSecurityMode[session.channel?.securityMode ?? MessageSecurityMode.Invalid],
        },
        'opcua.session',
      ),
    );
    await server.start();
  } catch (error) {
    unsubscribe();
    await server.shutdown(0).catch(() => {});
    await certificate.store.dispose().catch(() => {});
    throw error;
  }
  return {
    endpoint: server.getEndpointUrl(),
    certificateMs: certificate.createdInMs,
    sessions: () => server.currentSessionCount,
    stop: async () => {
      unsubscribe();
      await server.shutdown(0);
      await certificate.store.dispose();
    },
  };
}

/** Compares digests in constant time, so the check's duration says nothing about the password. */
function userCheck(user: OpcuaConfig['user']): (username: string, password: string) => boolean {
  if (user === null) return () => false;
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  const name = digest(user.name);
  const password = digest(user.password);
  return (username, given) => {
    const nameMatches = timingSafeEqual(digest(username), name);
    const passwordMatches = timingSafeEqual(digest(given), password);
    return nameMatches && passwordMatches;
  };
}

/** node-opcua prints its warnings to the console; here they go to the JSON log instead. */
function routeLibraryLogs(opcua: typeof NodeOpcua, logger: Logger): void {
  opcua.setWarningLogger((...args: unknown[]) => logger.debug({ event: 'opcua.library' }, format(...args)));
  opcua.setErrorLogger((...args: unknown[]) => logger.warn({ event: 'opcua.library' }, format(...args)));
}
