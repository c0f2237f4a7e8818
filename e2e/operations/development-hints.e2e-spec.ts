/**
 * What a new app's mistakes log, over real HTTP: a page refused because `resolvePageUser` returned nothing (in
 * development, one line per process naming the option; nothing with NODE_ENV=production), and a `baseUrl` on
 * localhost whose port is not the one the app listens on (one start-up line; none for another host, where a proxy
 * may serve another port, nor for the right port).
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { freePort } from '../../examples/demo/demo-process.js';
import { ElicitationModule, ElicitationService, type ElicitationModuleOptions } from '../../src/index.js';
import { RecordingLogger } from '../support/recording-logger.js';

const apps: INestApplication<Server>[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function listen(options: ElicitationModuleOptions, port: number) {
  const logger = new RecordingLogger();
  const moduleRef = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(options)] }).compile();
  const app = moduleRef.createNestApplication<INestApplication<Server>>({ logger });
  apps.push(app);
  await app.listen(port, '127.0.0.1');
  return { app, logger };
}

async function withNodeEnv<T>(value: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.NODE_ENV;
  process.env.NODE_ENV = value;
  try {
    return await run();
  } finally {
    process.env.NODE_ENV = saved;
  }
}

const hints = (logger: RecordingLogger) => logger.lines.filter((line) => line.includes('resolvePageUser'));

describe('a page refused because resolvePageUser returned nothing', () => {
  // In this order: the hint is logged once per process.
  it('with NODE_ENV=production: 401 "Please sign in", nothing logged', async () => {
    const port = await freePort();
    const { app, logger } = await withNodeEnv('production', () =>
      listen({ baseUrl: `http://127.0.0.1:${port}`, resolvePageUser: () => undefined, encryptionKey: 'a'.repeat(64) }, port),
    );
    const { url } = await app.get(ElicitationService).createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
    const page = await withNodeEnv('production', () => fetch(url));
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('Please sign in');
    expect(hints(logger)).toEqual([]);
  });

  it('in development: 401, and one warning per process naming resolvePageUser, ElicitationModule.forRoot and what it returned', async () => {
    const port = await freePort();
    const { app, logger } = await listen({ baseUrl: `http://127.0.0.1:${port}`, resolvePageUser: () => undefined }, port);
    const service = app.get(ElicitationService);
    for (const kind of ['api-key', 'confirm'] as const) {
      const { url } = await service.createUrlElicitation({ kind, message: 'Key?', userId: 'alice' });
      const page = await fetch(url);
      expect(page.status).toBe(401);
      expect(await page.text()).toContain('Please sign in');
    }
    expect(hints(logger)).toHaveLength(1);
    expect(hints(logger)[0]).toMatch(
      /^warn A page answered 401 "Please sign in": resolvePageUser \(ElicitationModule\.forRoot\) returned undefined/,
    );
    expect(hints(logger)[0]).toContain('req.user.id');
    expect(hints(logger)[0]).not.toContain('/elicit/'); // no page URL (its id) in the log
  });
});

describe('a page refused because another browser user opened it', () => {
  const otherUserHints = (logger: RecordingLogger) => logger.lines.filter((line) => line.includes('"Not your request"'));

  // In this order: the hint is logged once per process.
  it('with NODE_ENV=production: nothing logged', async () => {
    const port = await freePort();
    const { app, logger } = await withNodeEnv('production', () =>
      listen({ baseUrl: `http://127.0.0.1:${port}`, resolvePageUser: () => 'bob', encryptionKey: 'b'.repeat(64) }, port),
    );
    const { url } = await app.get(ElicitationService).createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice' });
    expect((await withNodeEnv('production', () => fetch(url))).status).toBe(403);
    expect(otherUserHints(logger)).toEqual([]);
  });

  it('in development: 403, and one warning per process naming both options and no user id', async () => {
    const port = await freePort();
    const { app, logger } = await listen({ baseUrl: `http://127.0.0.1:${port}`, resolvePageUser: () => 'dev-user' }, port);
    const service = app.get(ElicitationService);
    for (const kind of ['api-key', 'confirm'] as const) {
      const { url } = await service.createUrlElicitation({ kind, message: 'Key?', userId: 'alice' });
      const page = await fetch(url);
      expect(page.status).toBe(403);
    }
    expect(otherUserHints(logger)).toHaveLength(1);
    expect(otherUserHints(logger)[0]).toMatch(/^warn A page answered 403 "Not your request": the browser user \(resolvePageUser/);
    expect(otherUserHints(logger)[0]).toContain('resolveMcpUser');
    expect(otherUserHints(logger)[0]).not.toMatch(/alice|dev-user|\/elicit\//);
  });
});

describe('baseUrl on another port than the app listens on', () => {
  const portWarnings = (logger: RecordingLogger) => logger.lines.filter((line) => line.includes('the app listens on port'));

  it('baseUrl on localhost: one start-up warning naming baseUrl, its port and the listening port', async () => {
    const port = await freePort();
    const { logger } = await listen({ baseUrl: 'http://localhost:3000' }, port);
    expect(portWarnings(logger)).toEqual([
      `warn baseUrl http://localhost:3000 names port 3000, but the app listens on port ${port}: the page links will not reach it. ` +
        'Set baseUrl (ElicitationModule.forRoot) to the address browsers use: from PUBLIC_URL, else http://localhost:<the PORT ' +
        'the app listens on>. Elicitation',
    ]);
  });

  it('127.0.0.1 without a port (80): warns too', async () => {
    const port = await freePort();
    const { logger } = await listen({ baseUrl: 'http://127.0.0.1' }, port);
    expect(portWarnings(logger)).toHaveLength(1);
    expect(portWarnings(logger)[0]).toContain(`names port 80, but the app listens on port ${port}`);
  });

  it('the right port, or a host that is not this machine (a proxy): no warning', async () => {
    const port = await freePort();
    const same = await listen({ baseUrl: `http://localhost:${port}` }, port);
    const proxied = await listen({ baseUrl: 'https://mcp.example.com' }, await freePort());
    expect(portWarnings(same.logger)).toEqual([]);
    expect(portWarnings(proxied.logger)).toEqual([]);
  });
});
