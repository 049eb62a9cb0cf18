import type { AddressInfo } from 'node:net';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { answerClientErrors } from './http/client-errors.js';
import { guardConnections } from './http/connection-guard.js';
import { PACKAGE_VERSION } from '../version.js';
import { computeNodeTypes, NODE_KINDS } from './kinds/index.js';
import type { NodeKind } from './kinds/kind.js';
import { ControllerNodeTypes } from './controller/node-types.js';
import { computeCapabilities } from './compute/capabilities.js';
import { LocalCompute } from './compute/local-compute.js';
import { HostInterfacePolicy } from './compute/host-interface-policy.js';
import { cleanupDeadDaemons, daemonRegistry } from './compute/process/process-registry.js';
import { ComputeResources } from './compute/resources.js';
import { UdpPortAllocator } from './compute/udp-ports.js';
import { ConsolePortAllocator } from './compute/console-ports.js';
import { MacByteAllocator } from './compute/mac-bytes.js';
import { vpcsMac } from './kinds/vpcs/mac-address.js';
import { readCmdline } from '../util/proc-info.js';
import { reachableHost, type ComputeEndpoint } from './controller/compute-http.js';
import { ComputeRegistry } from './controller/computes.js';
import { createDataplane } from './dataplane/index.js';
import { ControllerEvents } from './controller/events.js';
import { Labs } from './controller/lab.js';
import { ProjectArchives } from './controller/archives.js';
import { ImportLimits } from './controller/import-limits.js';
import { DrawingManager } from './controller/drawings.js';
import { ApplianceCatalog } from './controller/appliances.js';
import { GuiSettings } from './controller/gui-settings.js';
import { SymbolLibrary } from './controller/symbols.js';
import { LabLifecycle, removeFromRemoteComputes } from './controller/lab-lifecycle.js';
import { LinkManager } from './controller/links.js';
import { LiveState } from './controller/live-state.js';
import { NodeManager } from './controller/nodes.js';
import { ProjectManager } from './controller/projects.js';
import { SnapshotManager } from './controller/snapshots.js';
import { TemplateManager } from './controller/templates.js';
import { createApp } from './http/app.js';
import { StreamSlots } from './http/streams.js';
import { OwnNames, type Scheme } from './http/own-names.js';
import { upgradeThroughApp } from './http/notifications/upgrade.js';
import { OpenConsoles } from './http/console/open-consoles.js';
import { hostUsage } from './host-usage.js';
import { wireNotifications } from './notifications/channels.js';
import { NotificationHub } from './notifications/hub.js';
import { createLogger, survivableStdio, type Logger } from './logger.js';
import { startMemoryLog } from './memory-log.js';
import { ownPidRecord, readPidRecord, recordedProcess } from '../config/pid-file.js';
import { removeOwnPidFile, writePidFile } from './pid-file.js';
import { resolveSettings, type DaemonFlags, type DaemonSettings } from './settings.js';
import { checkExposure, exposureWarnings, looseSecretWarnings } from './exposure.js';
import { loadTlsIdentity, type TlsIdentity } from './tls-identity.js';
import { ManagementNetworks } from './controller/management/networks.js';
import { ComputeManagement } from './compute/management/compute-management.js';

export type { DaemonFlags } from './settings.js';

export interface RunningDaemon {
  url: string;
  port: number;
  settings: DaemonSettings;
  /** With TLS: the SHA-256 fingerprint of its certificate (colon-hex). */
  fingerprint?: string;
  /** Graceful stop: stop accepting, finish in-flight requests, flush state. */
  close(): Promise<void>;
  /** Resolves once the daemon has fully stopped. */
  closed: Promise<void>;
}

/** The umask of the daemon and of every process it starts: files 0600, directories 0700 (sockets likewise). */
const PRIVATE_UMASK = 0o077;

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
const DRAIN_MS = 5000;

/**
 * Starts the daemon: loads state, listens, writes the pid file, and stops gracefully on SIGTERM/SIGINT.
 * `kinds` are the node kinds it knows (NODE_KINDS unless told; a test adds a toy kind this way): both
 * the compute's registry and the controller's node types are built from them.
 */
export async function startDaemon(flags: DaemonFlags, env: NodeJS.ProcessEnv = process.env, opts: { handleSignals?: boolean; kinds?: readonly NodeKind[] } = {}): Promise<RunningDaemon> {
  survivableStdio();
  // Everything the daemon and its children (VPCS, QEMU, dnsmasq…) create is owner-only, whatever
  // umask the daemon was started with: vpcs.log and other files emuctl does not open itself included.
  process.umask(PRIVATE_UMASK);
  const settings = await resolveSettings(flags, env);
  checkExposure(settings);
  const tls = settings.tlsCert ? await loadTlsIdentity(settings.tlsCert, settings.tlsKey!) : undefined;
  // The one place the scheme is chosen: HTTPS when the daemon has a certificate.
  const scheme: Scheme = tls ? 'https' : 'http';
  const log = createLogger({ debug: settings.debug, file: settings.logFile });
  const secrets = [{ path: settings.tlsKey, what: 'TLS key' }, { path: flags.authPasswordFile, what: 'auth password file' }];
  for (const warning of [...exposureWarnings(settings), ...looseSecretWarnings(secrets)]) log.warn(warning);
  const startedAt = new Date();
  const isController = settings.role !== 'compute';
  const isCompute = settings.role !== 'controller';

  const events = new ControllerEvents();
  const notifications = new NotificationHub({ log, usage: hostUsage });
  const projects = new ProjectManager({ projectsDir: settings.projectsDir, log, events });

  await refuseIfRunning(settings);
  const processRegistry = daemonRegistry(settings.paths.runDir, settings.port);
  if (isCompute) await cleanupLeftovers(settings, log);
  const computeManagement = isCompute ? new ComputeManagement({ runDir: settings.paths.runDir, log, env, registry: processRegistry, allowNat: settings.mgmtNat }) : undefined;
  await computeManagement?.cleanupLeftovers().catch((err: Error) => log.error(`cleaning up what a previous run's management networks left: ${err.message}`));
  const [consoleMin, consoleMax] = settings.consolePortRange;
  const kinds = opts.kinds ?? NODE_KINDS;
  const nodeTypes = computeNodeTypes({ settings, env, log, registry: processRegistry }, kinds);
  if (isCompute) {
    for (const kind of nodeTypes.all()) await kind.cleanupLeftovers?.().catch((err: Error) => log.error(`cleaning up what a previous run left (${kind.type}): ${err.message}`));
  }
  const resources = new ComputeResources(
    new UdpPortAllocator(settings.udpPortRange, settings.host),
    new ConsolePortAllocator({ min: consoleMin, max: consoleMax }),
    new MacByteAllocator(vpcsMac),
  );
  const dataplane = isCompute ? await createDataplane({ engine: settings.dataplane, offload: settings.tapOffload, log }) : undefined;
  const stopMemoryLog = settings.memoryLogSeconds > 0 ? startMemoryLog({ seconds: settings.memoryLogSeconds, log, workerHeap: dataplane?.heap?.bind(dataplane) }) : undefined;
  const compute = dataplane
    ? new LocalCompute({ dataplane, nodeTypes, projectsDir: settings.projectsDir, bindHost: settings.host, resources, log, hostInterfaces: new HostInterfacePolicy(settings.cloudInterfaces), management: computeManagement })
    : undefined;
  const capabilities = () => computeCapabilities({ gns3Version: settings.gns3Version, nodeTypes });
  const computes = new ComputeRegistry({
    file: isController ? settings.paths.computesFile(settings.port) : undefined,
    timeoutMs: settings.computeTimeoutMs,
    log,
    events,
    local: compute && isController ? { protocol: scheme, host: settings.host, port: settings.port, capabilities } : undefined,
  });

  if (compute) computes.setApi('local', compute);
  const labs = new Labs();
  const links = new LinkManager({ computes, events });
  const management = new ManagementNetworks({ range4: settings.mgmtRange, range6: settings.mgmtRangeIpv6, computes, log, projects: () => projects.list() });
  const nodeTypeRules = new ControllerNodeTypes(kinds);
  const nodes = new NodeManager({ computes, events, links, policy: settings, management, types: nodeTypeRules });
  computes.setReports(new LiveState({ labs, nodes, links, events, log }));
  if (compute && isController) computes.followLocal(compute.events);
  wireNotifications(notifications, { controller: isController ? events : undefined, compute: compute?.events });
  projects.addLifecycle(new LabLifecycle({ labs, nodes, links, computes, log }));
  projects.addLifecycle(management);
  const templates = new TemplateManager({ file: isController ? settings.paths.templatesFile(settings.port) : undefined, events, log, policy: settings, types: nodeTypeRules });
  const gui = new GuiSettings(isController ? settings.paths.guiSettingsFile(settings.port) : undefined);
  const symbols = new SymbolLibrary(settings.symbolsDir);
  const appliances = new ApplianceCatalog(settings.appliancesDir, log);
  const drawings = new DrawingManager({ events });
  const archives = new ProjectArchives({ projects, labs, computes, limits: new ImportLimits(settings), log, types: nodeTypeRules });
  const snapshots = new SnapshotManager({ projects, archives, events, removeFromRemoteComputes: (p) => removeFromRemoteComputes(p, computes, log) });
  if (isController) {
    await templates.load();
    await gui.load();
    await computes.load();
    await projects.load();
    await projects.autoOpen();
  }

  let port = settings.port;
  const streams = new StreamSlots(settings.maxStreams, log);
  const consoles = new OpenConsoles();
  const app = createApp({
    log,
    version: PACKAGE_VERSION,
    gns3Version: settings.gns3Version,
    startedAt,
    body: { maxBytes: settings.maxBodyBytes, maxDepth: settings.jsonMaxDepth, maxItems: settings.jsonMaxItems },
    streams,
    guard: { names: new OwnNames({ scheme, bindHost: settings.host, port: () => port, allowedHosts: settings.allowedHosts }), corsOrigins: settings.corsOrigins },
    auth: settings.auth,
    webUi: settings.webUi,
    loginBackoff: { maxFailures: settings.authMaxFailures, backoffMs: settings.authBackoffMs },
    controller: isController ? { projects, computes, labs, nodes, links, management, templates, drawings, snapshots, archives, gui, symbols, appliances, forwardTimeoutMs: settings.forwardTimeoutMs, self: () => selfEndpoint(settings, port, tls) } : undefined,
    compute: compute ? { compute, capabilities, env, udpPortRange: settings.udpPortRange, consolePortRange: settings.consolePortRange } : undefined,
    notifications,
    consoles,
  });

  const server = await listen(app, settings, log, tls);
  server.on('upgrade', upgradeThroughApp(app));
  port = (server.address() as AddressInfo).port;
  computes.setLocalPort(port);
  const url = `${scheme}://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`;
  const pidFile = settings.paths.pidFile(port);
  await writePidFile(pidFile, ownPidRecord(url, startedAt.toISOString(), tls?.fingerprint));

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      log.info('shutting down');
      stopMemoryLog?.();
      notifications.close();
      consoles.closeAll();
      await stopServer(server);
      computes.close();
      await projects.closeAll();
      await compute?.closeAll().catch((err) => log.error(`closing the compute: ${err.message}`));
      for (const kind of nodeTypes.all()) await kind.close?.().catch((err: Error) => log.error(`closing ${kind.type}: ${err.message}`));
      await dataplane?.close();
      removeOwnPidFile(pidFile, process.pid);
      log.info('stopped');
      await log.close();
      resolveClosed();
    })());

  if (opts.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      log.info(`received ${signal}`);
      void close();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    process.on('unhandledRejection', (reason) => log.error(`unhandled rejection: ${(reason as Error)?.stack ?? reason}`));
  }
  if (tls) log.info(`serving HTTPS and WSS with the certificate ${settings.tlsCert}, SHA256 fingerprint: ${tls.fingerprint}`);
  // Only now: whoever waits for this line may signal the daemon at once.
  log.info(`emuctl daemon ${PACKAGE_VERSION} (${settings.role}) listening on ${url}, projects in ${settings.projectsDir}${dataplane ? `, ${dataplane.engine} dataplane` : ''}`);
  return { url, port, settings, fingerprint: tls?.fingerprint, close, closed };
}

/** This daemon as a compute endpoint, for calls the controller forwards to `local`. */
function selfEndpoint(settings: DaemonSettings, port: number, tls: TlsIdentity | undefined): ComputeEndpoint {
  return { compute_id: 'local', name: 'local', protocol: tls ? 'https' : 'http', host: reachableHost(settings.host), port, user: settings.auth?.user, password: settings.auth?.password, fingerprint: tls?.fingerprint };
}

/**
 * A second daemon on the same port would fail to listen, but only after its
 * leftover cleanup had stopped the running daemon's VPCS: refuse before that.
 */
async function refuseIfRunning(settings: DaemonSettings): Promise<void> {
  if (settings.port === 0) return;
  const record = readPidRecord(settings.paths.pidFile(settings.port));
  const running = record && record.pid !== process.pid ? recordedProcess(record) : 'gone';
  if (running === 'daemon' || (running === 'unverified' && isNodeProcess(record!.pid))) {
    throw new Error(`an emuctl daemon (pid ${record!.pid}) already serves ${record!.url}`);
  }
}

function isNodeProcess(pid: number): boolean {
  const cmdline = readCmdline(pid);
  return !cmdline || cmdline.some((arg) => /node/.test(arg));
}

/** Stops what a crashed predecessor left running (VPCS in their own sessions keep ports held otherwise). */
async function cleanupLeftovers(settings: DaemonSettings, log: Logger): Promise<void> {
  const report = await cleanupDeadDaemons(settings.paths.runDir, settings.port);
  for (const r of report.stopped) log.warn(`stopped leftover process ${r.pid} (${r.label ?? r.cmdline.join(' ')}) from a previous run`);
  for (const r of report.failed) log.error(`could not stop leftover process ${r.pid} (${r.label ?? r.cmdline.join(' ')})`);
}

/**
 * Listens with bounds against slow clients: headers and the whole request must arrive in time, idle
 * keep-alive connections close, and connections beyond the caps (in all, per address) are refused
 * or make room (see guardConnections), with one log line per window. Answers that stream (pcap, notifications) are not cut:
 * the request timeout only bounds receiving the request; StreamSlots bounds how many there are.
 */
function listen(app: ReturnType<typeof createApp>, settings: DaemonSettings, log: Logger, tls: TlsIdentity | undefined): Promise<Server> {
  return new Promise((resolve, reject) => {
    const requestTimeout = settings.requestTimeoutMs;
    const headersTimeout = Math.min(settings.headersTimeoutMs, requestTimeout);
    const options = {
      requestTimeout,
      headersTimeout,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      // How often the timeouts above are checked (Node's default, 30 s, would let them overrun by that much).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
    };
    const server: Server = tls ? createHttpsServer({ ...options, cert: tls.cert, key: tls.key, handshakeTimeout: headersTimeout }, app) : createHttpServer(options, app);
    answerClientErrors(server);
    guardConnections(server, { maxConnections: settings.maxConnections, maxPerAddress: settings.maxConnectionsPerAddress, headersTimeoutMs: headersTimeout, tls: !!tls }, log);
    server.listen(settings.port, settings.host);
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) => {
      const where = `${settings.host}:${settings.port}`;
      const message =
        err.code === 'EADDRINUSE' ? `port ${settings.port} on ${settings.host} is already in use` :
        err.code === 'EADDRNOTAVAIL' ? `address ${settings.host} is not available on this host` :
        err.code === 'EACCES' ? `no permission to listen on ${where}` : `cannot listen on ${where}: ${err.message}`;
      log.error(message);
      reject(new Error(message));
    });
  });
}

async function stopServer(server: Server): Promise<void> {
  const done = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), DRAIN_MS);
  await done;
  clearTimeout(timer);
}
