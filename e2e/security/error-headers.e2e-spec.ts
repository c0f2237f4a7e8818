/**
 * What the framework answers on the module's routes before any of the module's filters can run (a broken
 * percent-escape, a body the parser refuses, a page name or a method no route has) gets the module's answer:
 * the security headers, no X-Powered-By, the readable error page on a page path, JSON on the status route, and
 * never the raw input. The host app's other routes answer exactly as they do without the module. Walked on a
 * real app over real HTTP, on Express and on Fastify.
 */
import type { Server } from 'node:http';
import formbody from '@fastify/formbody';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  type ArgumentsHost,
  Body,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  type INestApplication,
  Param,
  Post,
  type Type,
} from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { PAGE_CSP, pageTestOptions } from '../support/page-app.js';
import { csrfFor } from '../support/page-form.js';
import { assetTag } from '../../test/support/page-assets.js';

type Adapter = 'express' | 'fastify';

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none'";
const UNKNOWN_ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const FORM = 'application/x-www-form-urlencoded';
/** Over both adapters' body limits (Express's parsers: 100 KB; Fastify: 1 MiB). */
const HUGE = 1_500_000;

/** The host app's own routes, whose answers must not change with the module. */
@Controller('host')
class HostController {
  @Get('hello')
  hello() {
    return { hello: 'world' };
  }

  @Get('item/:name')
  item(@Param('name') name: string) {
    return { name };
  }

  @Post('echo')
  echo(@Body() body: unknown) {
    return { body };
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One request over real HTTP (fetch keeps a broken escape in the path as it is). */
async function send(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const res = await fetch(url + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  const all: Record<string, string> = {};
  res.headers.forEach((value, name) => (all[name] = value));
  return { status: res.status, headers: all, text };
}

/** A listening app with these modules and the host's controller, on either adapter (Fastify as the demo sets it up). */
async function start(
  adapter: Adapter,
  imports: Type[] | ReturnType<typeof ElicitationModule.forRoot>[],
  globalPrefix?: string,
  setup?: (app: INestApplication) => void,
): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports, controllers: [HostController] }).compile();
  let app: INestApplication;
  if (adapter === 'fastify') {
    const fastifyApp = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false, bodyParser: false });
    await fastifyApp.register(formbody);
    app = fastifyApp;
  } else {
    app = moduleRef.createNestApplication({ logger: false });
  }
  if (globalPrefix) app.setGlobalPrefix(globalPrefix);
  setup?.(app);
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}` };
}

const moduleWith = (options: Partial<ElicitationModuleOptions> & Record<string, unknown> = {}) =>
  ElicitationModule.forRoot(pageTestOptions({ loginUrl: '/login', ...options }));

/** The headers every answer of the module's routes carries, and the one it never does. */
function expectRouteHeaders(res: Answer): void {
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-powered-by']).toBeUndefined();
}

/** The module's error page: the route headers, the page CSP, HTML with a readable heading, none of `raw`. */
function expectErrorPage(res: Answer, status: number, heading: string, raw: string[]): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: HTML });
  expectRouteHeaders(res);
  expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
  // The page's one style, its stylesheet and its script run under the CSP's nonce; nothing else is there.
  const nonce = PAGE_CSP.exec(res.headers['content-security-policy'])?.[1];
  expect(res.text.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
  // Under whatever prefix the routes are served (a global prefix, a routePrefix): the assets are served there too.
  expect(res.text.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('script', nonce!, 'js', '(?:/[a-z]+)+'))]);
  expect(res.text.match(/<link\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('link', nonce!, 'css', '(?:/[a-z]+)+'))]);
  expect(res.text).toMatch(new RegExp(`<h1[^>]*>${heading}</h1>`));
  expect(res.text).toContain(`Status ${status}.`);
  expectNoEcho(res, raw);
}

/** The status route's JSON error: the route headers, a CSP that allows nothing, Nest's body shape, none of `raw`. */
function expectStatusError(res: Answer, status: number, message: RegExp, raw: string[]): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: JSON_TYPE });
  expectRouteHeaders(res);
  expect(res.headers['content-security-policy']).toBe(JSON_CSP);
  expect(JSON.parse(res.text)).toMatchObject({ statusCode: status, message: expect.stringMatching(message) });
  expectNoEcho(res, raw);
}

/** None of the request's own pieces (raw or decoded) comes back, nor the framework's message naming them. */
function expectNoEcho(res: Answer, raw: string[]): void {
  for (const piece of [...raw, 'Cannot ', 'Failed to decode', 'FST_ERR', 'not a valid url', 'charset "', 'JSON']) {
    expect({ piece, echoed: res.text.includes(piece) }).toEqual({ piece, echoed: false });
  }
}

describe.each<Adapter>(['express', 'fastify'])('framework errors on the module routes (%s, real HTTP)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let reference: { app: INestApplication; url: string };
  let knownId: string;
  /** `ElicitationStore.get` calls (the real method still runs): the framework answers before any store read. */
  let storeGets: () => number;
  let resetStoreGets: () => void;

  beforeAll(async () => {
    ({ app, url } = await start(adapter, [moduleWith()]));
    const spy = jest.spyOn(app.get(ElicitationStore), 'get');
    storeGets = () => spy.mock.calls.length;
    resetStoreGets = () => spy.mockClear();
    // The same host app without the module: what the host's routes answered before.
    reference = await start(adapter, []);
    const created = await app
      .get(ElicitationService)
      .createUrlElicitation({ kind: 'api-key', message: 'Enter your key', userId: 'alice', type: 'api-key-x' });
    knownId = created.elicitationId;
  });
  afterAll(async () => {
    await app.close();
    await reference.app.close();
  });
  beforeEach(() => resetStoreGets());
  /** What a refused body or path leaves: no store read, the known elicitation still pending. */
  const expectNothingRead = async () => {
    expect(storeGets()).toBe(0);
    expect(await app.get(ElicitationService).getResult(knownId)).toEqual({ status: 'pending' });
    expect((await app.get(ElicitationService).getStatus(knownId))?.status).toBe('pending');
  };

  it('a bad percent-escape in the id: 400, the page (or the status JSON), the escape never echoed, no store read', async () => {
    for (const path of ['/elicit/%E0%A4%A/api-key', '/elicit/%zz/confirm', '/elicit/%/form', '/elicit/%zz/api-key', '/elicit/%/confirm']) {
      const res = await send(url, 'GET', path, { 'x-test-user': 'alice' });
      expectErrorPage(res, 400, 'Something is wrong with this request', ['%E0%A4%A', '%zz', path]);
      expect(res.text).toContain('This request could not be read.');
    }
    const status = await send(url, 'GET', '/elicit/%E0%A4%A/status');
    expectStatusError(status, 400, /could not be read/, ['%E0%A4%A', '/elicit/']);
    // In any letter case of the prefix, and with a query.
    expectErrorPage(await send(url, 'GET', '/ELICIT/%E0%A4%A/api-key?x=%E0'), 400, 'Something is wrong with this request', ['%E0%A4%A']);
    await expectNothingRead();
  });

  it('a body over the body parser limit: 413 page, nothing read or stored', async () => {
    const path = `/elicit/${knownId}/api-key`;
    const form = await send(url, 'POST', path, { 'Content-Type': FORM }, `apiKey=${'k'.repeat(HUGE)}`);
    expectErrorPage(form, 413, 'Too much data', ['kkkk', knownId]);
    expect(form.text).toContain('The form sent too much data. Nothing was saved.');
    const json = await send(url, 'POST', path, { 'Content-Type': 'application/json' }, JSON.stringify({ apiKey: 'k'.repeat(HUGE) }));
    expectErrorPage(json, 413, 'Too much data', ['kkkk', knownId]);
    // With the page's own CSRF pair and its user, as a browser would send it: refused the same way.
    const pair = await csrfFor(url, path, { 'x-test-user': 'alice' });
    resetStoreGets();
    const withPair = await send(
      url,
      'POST',
      path,
      { 'Content-Type': FORM, Cookie: pair.cookie, 'x-test-user': 'alice' },
      `_csrf=${pair.token}&apiKey=${'k'.repeat(HUGE)}`,
    );
    expectErrorPage(withPair, 413, 'Too much data', ['kkkk', knownId, pair.token]);
    expect(withPair.text).toContain('The form sent too much data. Nothing was saved.');
    await expectNothingRead();
  });

  it('charset=utf-16: a page with the headers (Express refuses the charset: 415; @fastify/formbody reads it, the CSRF check refuses: 403)', async () => {
    const res = await send(url, 'POST', `/elicit/${knownId}/api-key`, { 'Content-Type': `${FORM}; charset=utf-16` }, 'apiKey=sk-utf16');
    if (adapter === 'express') expectErrorPage(res, 415, 'Form not accepted', ['utf-16', 'UTF-16', 'sk-utf16']);
    else expectErrorPage(res, 403, '[^<]+', ['utf-16', 'sk-utf16']);
  });

  it('malformed JSON on a page post: 400 page, nothing of the body echoed, nothing read or stored', async () => {
    const res = await send(url, 'POST', `/elicit/${knownId}/api-key`, { 'Content-Type': 'application/json' }, '{"apiKey":"sk-half');
    expectErrorPage(res, 400, 'Something is wrong with this request', ['sk-half', 'Unexpected', 'at position', 'valid JSON']);
    expect(res.text).toContain('This request could not be read.');
    await expectNothingRead();
  });

  it('an unknown page name, OPTIONS, PUT, an empty id, an over-long segment: 404 page', async () => {
    const long = 'x'.repeat(150);
    const cases: Array<[string, string]> = [
      ['GET', `/elicit/${knownId}/nope`],
      ['OPTIONS', `/elicit/${knownId}/api-key`],
      ['PUT', `/elicit/${knownId}/api-key`],
      ['DELETE', `/elicit/${knownId}/confirm`],
      ['GET', '/elicit//api-key'],
      ['GET', '/elicit'],
    ];
    for (const [method, path] of cases) {
      const res = await send(url, method, path);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expectErrorPage(res, 404, 'Request not found', ['nope', method === 'GET' ? 'GET ' : method]);
      expect(res.text).toContain('There is no page at this address.');
    }
    // A segment longer than a route parameter may be (Fastify's router would answer 414, echoing the path).
    for (const method of ['GET', 'POST']) {
      const res = await send(url, method, `/elicit/${long}/api-key`, { 'Content-Type': FORM }, method === 'POST' ? 'apiKey=k' : undefined);
      expectErrorPage(res, 404, 'Request not found', [long.slice(0, 20)]);
      expect(res.text).toContain('This elicitation was not found.');
    }
  });

  it('the status route: 200 and its 404s are JSON with the headers; a method it does not take is a JSON 404', async () => {
    const ok = await send(url, 'GET', `/elicit/${knownId}/status`);
    expect({ status: ok.status, type: ok.headers['content-type'] }).toEqual({ status: 200, type: JSON_TYPE });
    expectRouteHeaders(ok);
    expect(ok.headers['content-security-policy']).toBe(JSON_CSP);
    expect(JSON.parse(ok.text)).toMatchObject({ elicitationId: knownId, status: 'pending', completed: false });
    expectStatusError(await send(url, 'GET', `/elicit/${UNKNOWN_ID}/status`), 404, /not found/, []);
    expectStatusError(await send(url, 'GET', '/elicit/not-a-real-id/status'), 404, /not found/, ['not-a-real-id']);
    expectStatusError(await send(url, 'PUT', `/elicit/${knownId}/status`), 404, /not found/, ['PUT']);
    expectStatusError(await send(url, 'GET', `/elicit/${'y'.repeat(150)}/status`), 404, /not found/, ['y'.repeat(20)]);
  });

  it('the pages redirect with the headers too (303 to sign in)', async () => {
    const res = await send(url, 'GET', `/elicit/${knownId}/api-key`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/login\?returnTo=/);
    expectRouteHeaders(res);
    expect(res.headers['content-security-policy']).toBe(JSON_CSP);
  });

  it("the host app's other routes answer exactly as without the module (status, headers, body)", async () => {
    const requests: Array<[string, string, Record<string, string>?, string?]> = [
      ['GET', '/host/hello'],
      ['GET', '/host/nope'],
      ['PUT', '/host/hello'],
      ['OPTIONS', '/host/hello'],
      ['GET', '/host/item/%E0%A4%A'],
      ['GET', '/host/item/%zz'],
      ['POST', '/host/echo', { 'Content-Type': 'application/json' }, '{"a":'],
      ['POST', '/host/echo', { 'Content-Type': FORM }, `a=${'b'.repeat(HUGE)}`],
      ['POST', '/host/echo', { 'Content-Type': `${FORM}; charset=utf-16` }, 'a=b'],
      ['GET', '/elicitation/x/api-key'],
      ['GET', '/elicitx/%E0%A4%A'],
      ['GET', '/other/elicit/x/nope'],
    ];
    for (const [method, path, headers, body] of requests) {
      const [mine, before] = [await send(url, method, path, headers, body), await send(reference.url, method, path, headers, body)];
      const comparable = (res: Answer) => {
        const { date: _date, ...headers } = res.headers;
        return { method, path, status: res.status, headers, text: res.text };
      };
      expect(comparable(mine)).toEqual(comparable(before));
    }
    // Nest's default answers, for the record: the module adds nothing to them.
    const notFound = await send(url, 'GET', '/host/nope');
    expect(JSON.parse(notFound.text)).toEqual({ message: 'Cannot GET /host/nope', error: 'Not Found', statusCode: 404 });
    expect(notFound.headers['x-content-type-options']).toBeUndefined();
    expect(notFound.headers['x-powered-by']).toBe(adapter === 'express' ? 'Express' : undefined);
  });
});

describe.each<Adapter>(['express', 'fastify'])('framework errors under a global prefix and a custom routePrefix (%s)', (adapter) => {
  let app: INestApplication;
  let url: string;
  let reference: { app: INestApplication; url: string };

  beforeAll(async () => {
    ({ app, url } = await start(adapter, [moduleWith({ routePrefix: 'mcp/ask', baseUrl: 'http://127.0.0.1:3000/api' })], 'api'));
    reference = await start(adapter, [], 'api');
  });
  afterAll(async () => {
    await app.close();
    await reference.app.close();
  });

  it('answers on the routes where they are served: /api/mcp/ask/...', async () => {
    expectErrorPage(await send(url, 'GET', '/api/mcp/ask/%E0%A4%A/api-key'), 400, 'Something is wrong with this request', ['%E0%A4%A']);
    const unknownPage = await send(url, 'GET', `/api/mcp/ask/${UNKNOWN_ID}/nope`);
    expectErrorPage(unknownPage, 404, 'Request not found', ['nope']);
    // The page's stylesheet and script are served under the same prefixes.
    for (const [, asset] of unknownPage.text.matchAll(/(?:href|src)="(\/api\/mcp\/ask\/assets\/[^"]+)"/g)) {
      expect((await send(url, 'GET', asset)).status).toBe(200);
    }
    expect([...unknownPage.text.matchAll(/\/api\/mcp\/ask\/assets\//g)]).toHaveLength(2);
    expectErrorPage(await send(url, 'PUT', `/api/mcp/ask/${UNKNOWN_ID}/confirm`), 404, 'Request not found', ['PUT']);
    const malformed = await send(url, 'POST', `/api/mcp/ask/${UNKNOWN_ID}/api-key`, { 'Content-Type': 'application/json' }, '{');
    expectErrorPage(malformed, 400, 'Something is wrong with this request', []);
    expectStatusError(await send(url, 'GET', `/api/mcp/ask/${UNKNOWN_ID}/status`), 404, /not found/, []);
  });

  it('leaves every other path as Nest answers it, the unprefixed /mcp/ask/... included', async () => {
    for (const [method, path] of [
      ['GET', `/mcp/ask/${UNKNOWN_ID}/nope`],
      ['GET', '/mcp/ask/%E0%A4%A/api-key'],
      ['GET', '/api/host/nope'],
      ['GET', '/api/host/item/%zz'],
    ]) {
      const [mine, before] = [await send(url, method, path), await send(reference.url, method, path)];
      const { date: _mine, ...mineHeaders } = mine.headers;
      const { date: _before, ...beforeHeaders } = before.headers;
      expect({ path, status: mine.status, headers: mineHeaders, text: mine.text }).toEqual({
        path,
        status: before.status,
        headers: beforeHeaders,
        text: before.text,
      });
    }
  });
});

/** A host app's own catch-all filter: it keeps answering the host's routes, and never the module's. */
@Catch()
class HostCatchAllFilter implements ExceptionFilter {
  catch(_exception: unknown, host: ArgumentsHost): void {
    const res = host
      .switchToHttp()
      .getResponse<{ status(code: number): unknown; header(n: string, v: string): unknown; send(body: string): unknown }>();
    res.status(418);
    res.header('Content-Type', 'text/plain');
    res.send('the host answers');
  }
}

describe.each<Adapter>(['express', 'fastify'])("with the host app's own global exception filter (%s)", (adapter) => {
  it("the host's filter still answers the host's routes; the module's paths get the module's answers", async () => {
    const { app, url } = await start(adapter, [moduleWith()], undefined, (a) => a.useGlobalFilters(new HostCatchAllFilter()));
    try {
      for (const [method, path, headers, body] of [
        ['GET', '/host/nope'],
        ['POST', '/host/echo', { 'Content-Type': 'application/json' }, '{"a":'],
      ] as Array<[string, string, Record<string, string>?, string?]>) {
        const res = await send(url, method, path, headers, body);
        expect({ path, status: res.status, text: res.text }).toEqual({ path, status: 418, text: 'the host answers' });
      }
      expectErrorPage(await send(url, 'GET', `/elicit/${UNKNOWN_ID}/nope`), 404, 'Request not found', ['nope']);
      const malformed = await send(url, 'POST', `/elicit/${UNKNOWN_ID}/api-key`, { 'Content-Type': 'application/json' }, '{"a":');
      expectErrorPage(malformed, 400, 'Something is wrong with this request', []);
      // An error on the module's own routes stays the module's too (the routes' filters come first).
      expectStatusError(await send(url, 'GET', `/elicit/${UNKNOWN_ID}/status`), 404, /not found/, []);
    } finally {
      await app.close();
    }
  });
});

describe('controllers: false', () => {
  it('mounts no routes and touches no answer: /elicit/... is the host app’s, as Nest answers it', async () => {
    const { app, url } = await start('express', [moduleWith({ controllers: false })]);
    try {
      const res = await send(url, 'GET', `/elicit/${UNKNOWN_ID}/nope`);
      expect(JSON.parse(res.text)).toEqual({ message: `Cannot GET /elicit/${UNKNOWN_ID}/nope`, error: 'Not Found', statusCode: 404 });
      expect(res.headers['x-powered-by']).toBe('Express');
      expect((await send(url, 'GET', '/elicit/%E0%A4%A/api-key')).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
