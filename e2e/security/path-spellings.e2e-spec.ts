/**
 * A path is the module's however its slashes are spelled (issue 28, item 9): leading slashes doubled or tripled
 * (`//elicit/<id>/confirm`) and slashes percent-encoded (`/elicit%2F<id>%2Fconfirm`, `%2f`) are no route's, but they
 * are under the module's prefix, so they get the module's 404: its error page (or the status route's JSON) with its
 * security headers (CSP, nosniff, no X-Powered-By), never the framework's 404 echoing the path. Sent byte for byte
 * over real HTTP to a real app, on Express and on Fastify (set up as the demo sets it up). The host app's own
 * paths spelled the same way still get the framework's answer.
 */
import { request as httpRequest, type Server } from 'node:http';
import formbody from '@fastify/formbody';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { pageTestOptions } from '../support/page-app.js';

type Adapter = 'express' | 'fastify';

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const PAGE_CSP =
  /^default-src 'none';\s*style-src 'nonce-([A-Za-z0-9_-]+)';\s*script-src 'nonce-\1';\s*img-src 'self' https: data:;\s*form-action 'self';\s*frame-ancestors 'none';\s*base-uri 'none'$/;
const JSON_CSP = "default-src 'none';frame-ancestors 'none';base-uri 'none'";

/** A route of the host app's own. */
@Controller('host')
class HostController {
  @Get('hello')
  hello() {
    return { hello: 'world' };
  }
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with `path` sent exactly as written (no client normalises it). */
function send(port: number, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function start(adapter: Adapter): Promise<{ app: INestApplication; port: number }> {
  const moduleRef = await Test.createTestingModule({
    imports: [ElicitationModule.forRoot(pageTestOptions())],
    controllers: [HostController],
  }).compile();
  let app: INestApplication;
  if (adapter === 'fastify') {
    const fastifyApp = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false, bodyParser: false });
    await fastifyApp.register(formbody);
    app = fastifyApp;
  } else {
    app = moduleRef.createNestApplication({ logger: false });
  }
  await app.listen(0, '127.0.0.1');
  return { app, port: ((app.getHttpServer() as Server).address() as { port: number }).port };
}

/** The module's headers on any of its answers, and the one it never sends. */
function expectModuleHeaders(res: Answer): void {
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['x-powered-by']).toBeUndefined();
}

/** Nothing of the path comes back, nor the framework's words naming it. */
function expectNoEcho(res: Answer, pieces: string[]): void {
  for (const piece of [...pieces, 'Cannot ', 'FST_ERR', 'Route ']) {
    expect({ piece, echoed: res.text.includes(piece) }).toEqual({ piece, echoed: false });
  }
}

describe.each<Adapter>(['express', 'fastify'])('other spellings of the module paths (%s, real HTTP)', (adapter) => {
  let app: INestApplication;
  let port: number;
  let id: string;

  beforeAll(async () => {
    ({ app, port } = await start(adapter));
    const created = await app.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Deploy shop?', userId: 'alice' });
    id = created.elicitationId;
  });
  afterAll(async () => {
    await app.close();
  });

  const pageSpellings = () => [
    `//elicit/${id}/confirm`,
    `///elicit/${id}/confirm`,
    `/elicit%2F${id}%2Fconfirm`,
    `/elicit%2f${id}%2fconfirm`,
    `/elicit%2F${id}/confirm`,
    `//elicit%2F${id}%2Fconfirm`,
    `/%2Felicit/${id}/confirm`,
    `//ELICIT/${id}/confirm?x=1`,
  ];

  it('a page path: the module 404 page with its headers, the path never echoed', async () => {
    for (const path of pageSpellings()) {
      for (const method of ['GET', 'POST']) {
        const res = await send(port, method, path);
        expect({ method, path, status: res.status, type: res.headers['content-type'] }).toEqual({ method, path, status: 404, type: HTML });
        expectModuleHeaders(res);
        expect(res.headers['content-security-policy']).toMatch(PAGE_CSP);
        expect(res.text).toContain('There is no page at this address.');
        expectNoEcho(res, [id, 'elicit%2', 'ELICIT', '//elicit']);
      }
    }
  });

  it('the status route: its JSON 404 with its headers, the path never echoed', async () => {
    for (const path of [`//elicit/${id}/status`, `///elicit/${id}/status`, `/elicit%2F${id}%2Fstatus`, `/elicit%2f${id}%2fstatus`]) {
      const res = await send(port, 'GET', path);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({ path, status: 404, type: JSON_TYPE });
      expectModuleHeaders(res);
      expect(res.headers['content-security-policy']).toBe(JSON_CSP);
      expect(JSON.parse(res.text)).toMatchObject({ statusCode: 404 });
      expectNoEcho(res, [id, 'elicit%2']);
    }
  });

  it('an encoded slash inside the id segment stays in it: the status route JSON 404, as the router reads it', async () => {
    // Over 100 characters with an escape: answered before the framework; the segment is still the id's.
    for (const path of [`/elicit/${'a%2F'.repeat(30)}/status`, `//elicit/${id}%2F${'b'.repeat(100)}/status`, `/elicit/a%2Fb/status`]) {
      const res = await send(port, 'GET', path);
      expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({ path, status: 404, type: JSON_TYPE });
      expectModuleHeaders(res);
      expectNoEcho(res, ['a%2F', 'bbbb', id]);
    }
  });

  it('no 5xx and no stack on any mix of slashes, escapes and case', async () => {
    const pieces = ['/', '//', '%2F', '%2f', '%252F', '%5C', '\\'];
    for (const a of pieces) {
      for (const b of pieces) {
        const path = `/${a}elicit${b}${id}${a}confirm${b}extend`.replace(/^\/\\/, '/');
        const res = await send(port, 'POST', path);
        expect({ path, status: res.status < 500 }).toEqual({ path, status: true });
        expect(res.text).not.toMatch(/\bat [^\n]+\.(js|ts):\d+/);
      }
    }
  });

  it("the host's own paths spelled the same way are left to the framework", async () => {
    expect((await send(port, 'GET', '/host/hello')).text).toBe('{"hello":"world"}');
    for (const path of ['//host/hello', '/host%2Fhello']) {
      const res = await send(port, 'GET', path);
      expect(res.headers['content-security-policy']).toBeUndefined();
    }
  });
});
