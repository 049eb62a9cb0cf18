import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (scripts/setup.sh installs it); EMUCTL_CHROMIUM names another binary. Playwright never downloads one. */
export const CHROMIUM = process.env.EMUCTL_CHROMIUM || '/usr/bin/chromium';

/** Keeps a test browser quiet and offline: no GPU, no QUIC, no first-run or sync, no update or background requests. */
const QUIET_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps', '--no-default-browser-check'];

export interface TestBrowser {
  context: BrowserContext;
  newPage(): Promise<Page>;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Starts headless Chromium with a fresh profile directory. `args` adds switches (e.g.
 * `--host-resolver-rules=MAP evil.example 127.0.0.1`). A missing Chromium fails with a clear message.
 */
export async function launchBrowser(opts: { args?: string[] } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it with scripts/setup.sh (Debian package chromium) or set EMUCTL_CHROMIUM`);
  const profile = mkdtempSync(join(tmpdir(), 'emuctl-browser-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: [...QUIET_ARGS, ...(opts.args ?? [])], timeout: 60_000 });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    newPage: () => context.newPage(),
    async close() {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface PageServer {
  /** e.g. http://127.0.0.2:41234 */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** A tiny web server on `host` (another loopback address, so its pages are another origin) answering every GET with `html()`. */
export async function servePage(host: string, html: (req: IncomingMessage) => string): Promise<PageServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html(req));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
