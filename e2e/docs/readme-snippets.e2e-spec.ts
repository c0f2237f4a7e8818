/**
 * The README's key snippets, run as they are (the files under examples/readme that the README embeds): the
 * async configuration (with the environment variables set, as @nestjs/config gives them:
 * strings) and the MCP binding's tools over Streamable HTTP in both protocol eras. Each is driven end to end:
 * the page is submitted over HTTP and the waiting code, the completion notification or the retry is observed.
 * The copyable MCP controllers and the quick start have their own tests (readme-controllers.e2e-spec.ts,
 * readme-quick-start.e2e-spec.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { All, Controller, Inject, type INestApplication, Req, Res, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from '@modelcontextprotocol/node';
import { freePort } from '../../examples/demo/demo-process.js';
import { ElicitationModule, ElicitationService } from '../../src/index.js';
import { createElicitationTestClient, submitPage, type TestToolResult } from '../../src/testing/index.js';

/** Sets the environment for one import of a snippet module (its decorators read it when the file loads). */
async function importWith<T>(env: Record<string, string>, load: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await load();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

/** A listening app of `module` on `port`; `identify` sets what the snippet's `resolvePageUser` reads. */
async function listen(module: Type, port: number, identify: (req: IncomingMessage & Record<string, unknown>) => void) {
  const app = (await Test.createTestingModule({ imports: [module] }).compile()).createNestApplication<INestApplication<Server>>({
    logger: false,
  });
  app.use((req: IncomingMessage & Record<string, unknown>, _res: ServerResponse, next: () => void) => {
    identify(req);
    next();
  });
  await app.listen(port, '127.0.0.1');
  return app;
}

const userHeader = (req: IncomingMessage) => req.headers['x-user'] as string | undefined;

describe('README async configuration (examples/readme/async-configuration.ts)', () => {
  const apps: INestApplication<Server>[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  async function roundTrip(app: INestApplication<Server>, user: string, headers: Record<string, string>) {
    const service = app.get(ElicitationService);
    const created = await service.createUrlElicitation({ kind: 'api-key', message: 'Your key', userId: user });
    const page = await submitPage(created.url, { apiKey: 'from-config' }, { headers });
    const outcome = await service.waitForCompletion<{ apiKey: string }>(created.elicitationId, { timeoutMs: 5000 });
    return { created, page, outcome };
  }

  it('useFactory: PUBLIC_URL and ELICITATION_TTL_MS (a string of digits) from the environment, the session user', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { PUBLIC_URL: origin, ELICITATION_TTL_MS: '300000' };
    const snippet = await importWith(env, () => import('../../examples/readme/async-configuration.js'));
    // ConfigModule reads process.env when the app starts: keep the variables set until it is listening.
    const app = await importWith(env, () =>
      listen(snippet.AppModule, port, (req) => {
        const id = userHeader(req);
        if (id) req.session = { userId: id };
      }),
    );
    apps.push(app);
    const { created, page, outcome } = await roundTrip(app, 'bob', { 'x-user': 'bob' });
    expect(created.url.startsWith(`${origin}/elicit/`)).toBe(true);
    const status = await app.get(ElicitationService).getStatus(created.elicitationId);
    expect(Date.parse(status!.expiresAt) - Date.parse(status!.createdAt)).toBe(300_000);
    expect(page.status).toBe(200);
    expect(outcome).toEqual({ status: 'completed', data: { apiKey: 'from-config' } });
  });

  it('useClass: an ElicitationOptionsFactory with the ConfigService injected', async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = { PUBLIC_URL: origin };
    const snippet = await importWith(env, () => import('../../examples/readme/async-configuration.js'));
    const app = await importWith(env, () =>
      listen(snippet.AppModuleWithClass, port, (req) => {
        const id = userHeader(req);
        if (id) req.user = { id };
      }),
    );
    apps.push(app);
    const { created, page, outcome } = await roundTrip(app, 'carol', { 'x-user': 'carol' });
    expect(created.url.startsWith(`${origin}/elicit/`)).toBe(true);
    expect(page.status).toBe(200);
    expect(outcome).toEqual({ status: 'completed', data: { apiKey: 'from-config' } });
  });
});

describe('README MCP binding (examples/readme/mcp-binding.ts) over Streamable HTTP', () => {
  let app: INestApplication<Server>;
  let origin: string;
  const transports = new Map<string, NodeStreamableHTTPServerTransport>();

  beforeAll(async () => {
    const { Tools } = await import('../../examples/readme/mcp-binding.js');
    type ToolsType = InstanceType<typeof Tools>;

    /** Test wiring only (the README's copyable controllers are tested elsewhere): the bearer name is the user. */
    @Controller('mcp')
    class McpRoute {
      private readonly stateless;
      constructor(@Inject(Tools) private readonly tools: ToolsType) {
        this.stateless = toNodeHandler(createMcpHandler(() => this.tools.createServer(), { legacy: 'reject' }));
      }

      @All()
      async handle(@Req() req: IncomingMessage & { body?: unknown; auth?: AuthInfo }, @Res() res: ServerResponse) {
        const user = /^Bearer (\w+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (user) req.auth = { token: user, clientId: user, scopes: [], extra: { userId: user } };
        const sessionId = req.headers['mcp-session-id'];
        if (req.method === 'POST' && sessionId === undefined && !(await isLegacyRequest(await toWebRequest(req, req.body), req.body))) {
          return this.stateless(req, res, req.body);
        }
        let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (!transport && isInitializeRequest(req.body)) {
          const id = randomUUID();
          transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
          transports.set(id, transport);
          await this.tools.createServer().connect(transport);
        }
        if (!transport) return void res.writeHead(404).end();
        await transport.handleRequest(req, res, req.body);
      }
    }

    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // The module's baseUrl must be the origin the pages are served on: build the module for this port.
    const module = Test.createTestingModule({
      imports: [ElicitationModule.forRoot({ baseUrl: origin, resolvePageUser: userHeader })],
      providers: [Tools],
      controllers: [McpRoute],
    });
    app = (await module.compile()).createNestApplication<INestApplication<Server>>({ logger: false });
    await app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await Promise.all([...transports.values()].map((t) => t.close()));
    await app?.close();
  });

  const text = (result: TestToolResult) => result.content.map((block) => block.text ?? '').join('');

  it.each(['2025-11-25', '2026-07-28'] as const)('%s: connect-service asks for the key on its page, then connects', async (era) => {
    const user = `dana${era.slice(0, 4)}`;
    const client = await createElicitationTestClient({ url: `${origin}/mcp`, era, user });
    try {
      let call: Promise<TestToolResult> | undefined;
      if (era === '2025-11-25') {
        await expect(client.callTool('connect-service', { service: 'github' })).rejects.toMatchObject({ code: -32042 });
      } else {
        call = client.callTool('connect-service', { service: 'github' });
        await client.waitForUrl();
      }
      const url = client.lastUrl()!;
      expect(url).toMatch(new RegExp(`^${origin}/elicit/[0-9a-f-]{36}/api-key$`));
      const page = await submitPage(url, { apiKey: 'ghp_binding' }, { headers: { 'x-user': user } });
      expect(page.status).toBe(200);
      if (call) {
        expect(text(await call)).toBe('Connected to github');
      } else {
        // 2025-11-25: the session that asked gets notifications/elicitation/complete, then the retry connects.
        await client.completion(new URL(url).pathname.split('/')[2]);
        expect(text(await client.callTool('connect-service', { service: 'github' }))).toBe('Connected to github');
      }
    } finally {
      await client.close();
    }
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('%s: approve-deploy reports the confirm page answer', async (era) => {
    const user = `erin${era.slice(0, 4)}`;
    const client = await createElicitationTestClient({ url: `${origin}/mcp`, era, user });
    try {
      const call = client.callTool('approve-deploy', { app: 'shop' });
      const url = await client.waitForUrl();
      expect(url).toMatch(/\/confirm$/);
      expect((await submitPage(url, {}, { headers: { 'x-user': user } })).status).toBe(200);
      expect(text(await call)).toBe('Deployed shop');
    } finally {
      await client.close();
    }
  });
});
