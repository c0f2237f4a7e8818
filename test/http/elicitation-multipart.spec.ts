/**
 * `ElicitationMultipartParser`: on a real Fastify adapter, a `multipart/form-data` post is let through unread (no
 * 415), so the file page can stream `req.raw` itself; a parser the app registered is kept; other adapters are left
 * alone.
 */
import { describe, expect, it } from '@jest/globals';
import { HttpAdapterHost } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { ElicitationMultipartParser } from '../../src/http/elicitation-multipart.js';

const BOUNDARY = 'x-boundary';
const MULTIPART = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\ntoken\r\n--${BOUNDARY}--\r\n`;

/** A Fastify app as Nest builds it, with the parser's hook run and a route that reports what it got. */
async function fastifyApp(before?: (instance: FastifyInstance) => void): Promise<{ url: string; close(): Promise<void> }> {
  const adapter = new FastifyAdapter();
  const instance = adapter.getInstance<FastifyInstance>();
  before?.(instance);
  const host = new HttpAdapterHost();
  host.httpAdapter = adapter;
  new ElicitationMultipartParser(host).onModuleInit();
  instance.post('/upload', async (request) => {
    // What is left of the body for the route to read itself.
    let unread = 0;
    if (!request.raw.readableEnded) for await (const chunk of request.raw) unread += (chunk as Buffer).length;
    return { body: request.body === undefined ? 'none' : request.body, unread };
  });
  const url = await instance.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => instance.close() };
}

const post = (url: string, type: string, body: string) =>
  fetch(`${url}/upload`, { method: 'POST', headers: { 'content-type': type }, body });

describe('ElicitationMultipartParser', () => {
  it('Fastify: a multipart post reaches the route with its body unread', async () => {
    const app = await fastifyApp();
    try {
      const res = await post(app.url, `multipart/form-data; boundary=${BOUNDARY}`, MULTIPART);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ body: 'none', unread: Buffer.byteLength(MULTIPART) });
    } finally {
      await app.close();
    }
  });

  it('Fastify without the parser (the reference): the same post is a 415', async () => {
    const adapter = new FastifyAdapter();
    const instance = adapter.getInstance<FastifyInstance>();
    instance.post('/upload', () => 'read');
    const url = await instance.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await post(url, `multipart/form-data; boundary=${BOUNDARY}`, MULTIPART)).status).toBe(415);
    } finally {
      await instance.close();
    }
  });

  it("Fastify: a multipart parser the app registered is kept (the app's other routes still get theirs)", async () => {
    const app = await fastifyApp((instance) =>
      instance.addContentTypeParser('multipart/form-data', (_request, payload, done) => {
        payload.resume();
        payload.on('end', () => done(null, 'parsed by the app'));
      }),
    );
    try {
      const res = await post(app.url, `multipart/form-data; boundary=${BOUNDARY}`, MULTIPART);
      expect(await res.json()).toEqual({ body: 'parsed by the app', unread: 0 });
    } finally {
      await app.close();
    }
  });

  it('Fastify: other content types are parsed as before', async () => {
    const app = await fastifyApp();
    try {
      const res = await post(app.url, 'application/json', '{"a":1}');
      expect(await res.json()).toEqual({ body: { a: 1 }, unread: 0 });
    } finally {
      await app.close();
    }
  });

  it('leaves Express alone, and does nothing without an HTTP adapter', () => {
    const express = new ExpressAdapter();
    const used: unknown[] = [];
    const instance = express.getInstance<{ use: (...args: unknown[]) => unknown }>();
    const use = instance.use.bind(instance);
    instance.use = (...args: unknown[]) => (used.push(args), use(...args));
    const host = new HttpAdapterHost();
    host.httpAdapter = express;
    new ElicitationMultipartParser(host).onModuleInit();
    expect(used).toEqual([]);
    expect(() => new ElicitationMultipartParser(new HttpAdapterHost()).onModuleInit()).not.toThrow();
  });
});
