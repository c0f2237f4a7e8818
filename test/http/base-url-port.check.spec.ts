/**
 * `BaseUrlPortCheck`: once the app's real HTTP server listens, a warning when `baseUrl` names this machine on
 * another port; quiet for the right port, for any other host (a proxy may serve another port), for a pipe, and
 * without an HTTP server.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { HttpAdapterHost } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { BaseUrlPortCheck } from '../../src/http/base-url-port.check.js';
import { captureLogs } from './http-exchange.support.js';

/** The adapter host of an app whose HTTP server is `server` (as Nest sets it up). */
function hostOf(server: Server): HttpAdapterHost {
  const adapter = new ExpressAdapter();
  adapter.setHttpServer(server);
  const host = new HttpAdapterHost();
  host.httpAdapter = adapter;
  return host;
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('BaseUrlPortCheck', () => {
  let logs: ReturnType<typeof captureLogs>;
  const servers: Server[] = [];
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(async () => {
    logs.restore();
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** Bootstraps the check with `baseUrl`, then listens (on `port`, or a free one); resolves the port listened on. */
  async function listenWith(baseUrl: string, port = 0): Promise<number> {
    const server = createServer();
    servers.push(server);
    new BaseUrlPortCheck({ baseUrl }, hostOf(server)).onApplicationBootstrap();
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    // The check's listener ran before this one (registered first).
    return (server.address() as AddressInfo).port;
  }

  it.each(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://127.10.0.1:3000', 'http://[::1]:3000', 'http://app.localhost:3000'])(
    '%s while the app listens elsewhere: one warning naming both ports and the fix',
    async (baseUrl) => {
      const port = await listenWith(baseUrl);
      expect(logs.warn).toHaveLength(1);
      expect(logs.warn[0]).toContain(`baseUrl ${baseUrl} names port 3000, but the app listens on port ${port}`);
      expect(logs.warn[0]).toContain('PUBLIC_URL');
    },
  );

  it("a baseUrl without a port names its scheme's default", async () => {
    await listenWith('http://localhost');
    await listenWith('https://localhost/app');
    expect(logs.warn.map((line) => /names port (\d+)/.exec(line)?.[1])).toEqual(['80', '443']);
  });

  it('quiet when baseUrl names the port the app listens on', async () => {
    const port = await freePort();
    await listenWith(`http://localhost:${port}`, port);
    expect(logs.warn).toEqual([]);
  });

  it.each(['https://mcp.example.com:3000', 'http://localhost.example.com:3000', 'http://127.0.0.1.nip.io:3000', 'http://10.0.0.5:3000'])(
    'quiet for another host (%s): behind a proxy ports differ, and the server is not even watched',
    async (baseUrl) => {
      const server = createServer();
      servers.push(server);
      const before = server.listenerCount('listening');
      new BaseUrlPortCheck({ baseUrl }, hostOf(server)).onApplicationBootstrap();
      expect(server.listenerCount('listening')).toBe(before);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      expect(logs.warn).toEqual([]);
    },
  );

  it('quiet when the app listens on a pipe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'port-check-'));
    try {
      const server = createServer();
      new BaseUrlPortCheck({ baseUrl: 'http://localhost:3000' }, hostOf(server)).onApplicationBootstrap();
      server.listen(join(dir, 'app.sock'));
      await once(server, 'listening');
      await new Promise((resolve) => server.close(resolve));
      expect(logs.warn).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does nothing without an HTTP adapter or server (an application context, a microservice)', () => {
    expect(() => new BaseUrlPortCheck({ baseUrl: 'http://localhost:3000' }).onApplicationBootstrap()).not.toThrow();
    expect(() => new BaseUrlPortCheck({ baseUrl: 'http://localhost:3000' }, new HttpAdapterHost()).onApplicationBootstrap()).not.toThrow();
    const adapterWithoutServer = new HttpAdapterHost();
    adapterWithoutServer.httpAdapter = new ExpressAdapter();
    expect(() => new BaseUrlPortCheck({ baseUrl: 'http://localhost:3000' }, adapterWithoutServer).onApplicationBootstrap()).not.toThrow();
    expect(logs.warn).toEqual([]);
  });
});
