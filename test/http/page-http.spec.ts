/**
 * `raw()`: the Node request or response under what each adapter hands a route, read off a real Express request and a
 * real Fastify one (the pages read headers, the URL and the method through it on both).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import Fastify from 'fastify';
import { raw, type NodeRequestPart, type NodeResponsePart } from '../../src/http/page-http.js';
import { exchange } from './http-exchange.support.js';

describe('raw', () => {
  it("is Express's request and response themselves (they are Node's)", async () => {
    const answer = await exchange({ path: '/elicit/x/api-key?a=1', headers: { 'accept-language': 'de' } }, (_context, req, res) => {
      const node = raw<NodeRequestPart>(req);
      return {
        sameRequest: node === req,
        sameResponse: raw<NodeResponsePart>(res) === res,
        isNode: node instanceof IncomingMessage,
        url: node.url,
        language: node.headers['accept-language'],
      };
    });
    expect(answer.result).toEqual({ sameRequest: true, sameResponse: true, isNode: true, url: '/elicit/x/api-key?a=1', language: 'de' });
  });

  it("is the Node request and response under Fastify's request and reply", async () => {
    const app = Fastify();
    let seen: Record<string, unknown> = {};
    app.get('/elicit/:id/api-key', (request, reply) => {
      const node = raw<NodeRequestPart>(request);
      seen = {
        request: node === request.raw && node instanceof IncomingMessage,
        reply: raw<NodeResponsePart>(reply) === reply.raw && reply.raw instanceof ServerResponse,
        url: node.url,
        method: node.method,
      };
      return reply.send('ok');
    });
    try {
      // A real request over a socket (Fastify's inject loads an ES module jest cannot require).
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${address}/elicit/x/api-key?a=1`);
      expect(response.status).toBe(200);
      expect(seen).toEqual({ request: true, reply: true, url: '/elicit/x/api-key?a=1', method: 'GET' });
    } finally {
      await app.close();
    }
  });
});
