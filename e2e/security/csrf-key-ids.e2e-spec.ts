/**
 * A CSRF token's key id comes from the browser (issue 28, item 7). A well-formed token under a key id no instance
 * holds is a forged post: 403 and the page every other CSRF failure gets, nothing logged above debug, so nobody can
 * drive the 5xx rate or the operator's warnings by making key ids up. Only a key id a live instance on the shared
 * store announced (`ElicitationKeyRingAnnouncer`) is a configuration problem: 503, the readable "configuration
 * problem" page, and a warning naming the key id at most once per interval. Real apps over real HTTP: one on the
 * memory store, and two on one real Redis whose rings only partly agree (B seals under a key A lacks).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { keyIdOf } from '../../src/security/key-ids.js';
import { deletePrefix, describeRedis, REDIS_URL } from '../../test/support/redis.js';
import { as, startPageApp } from '../support/page-app.js';
import { csrfFor, postForm } from '../support/page-form.js';
import { RecordingLogger } from '../support/recording-logger.js';

const HTML = 'text/html; charset=utf-8';
const escaped = (text: string) => text.replace(/'/g, '&#x27;').replace(/"/g, '&quot;');

/** A token of the shape the module issues (`<key id>.<43 base64url characters>`) under a made-up key id. */
const forgedToken = (keyId = randomBytes(4).toString('hex')) => ({ keyId, token: `${keyId}.${randomBytes(32).toString('base64url')}` });

/** The lines logged above debug (warn, error, fatal) since `from`. */
const loud = (logger: RecordingLogger, from: number) => logger.lines.slice(from).filter((line) => /^(warn|error|fatal) /.test(line));

/** The refusal every forged post gets: 403, the CSRF page, nothing of the token. */
function expectForged(res: request.Response, token: string): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 403, type: HTML });
  expect(res.text).toContain(PAGE_MESSAGES.headings.forgedPost);
  expect(res.text).toContain(escaped(PAGE_MESSAGES.errors.forgedPost));
  expect(res.text).not.toContain(token);
  expect(res.text).not.toContain(escaped(PAGE_MESSAGES.errors.keyMismatch));
}

describe('a forged CSRF token under an unknown key id (memory store)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    ({ app, service } = await startPageApp({}, { logger }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('is a forged post: 403 with the CSRF page on every page post, no warning, nothing changed', async () => {
    const confirm = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop?', userId: 'alice' });
    const apiKey = await service.createUrlElicitation({ kind: 'api-key', message: 'Your key', userId: 'alice' });
    const file = await service.createUrlElicitation({ kind: 'file', message: 'Your invoice', userId: 'alice' });
    const [confirmPath, apiKeyPath, filePath] = [confirm, apiKey, file].map((c) => new URL(c.url).pathname);
    const server = app.getHttpServer();
    // A first request (supertest has the app listen on a port of its own, which the port check warns of once).
    await request(server).get(`/elicit/${confirm.elicitationId}/status`).expect(200);
    const from = logger.lines.length;
    for (let i = 0; i < 20; i++) {
      const { token } = forgedToken();
      // Cookie-less, as the probe sent them: a form post, its "Need more time?", a JSON post, a multipart upload.
      expectForged(await request(server).post(confirmPath).set(as('alice')).type('form').send({ _csrf: token, action: 'confirm' }), token);
      expectForged(await request(server).post(`${confirmPath}/extend`).set(as('alice')).type('form').send({ _csrf: token }), token);
      expectForged(await request(server).post(apiKeyPath).set(as('alice')).send({ _csrf: token, apiKey: 'sk-forged' }), token);
      const upload = await request(server)
        .post(filePath)
        .set(as('alice'))
        .field('_csrf', token)
        .attach('file', Buffer.from('%PDF-1.4\n'), { filename: 'a.pdf', contentType: 'application/pdf' });
      expectForged(upload, token);
    }
    // With the browser's own cookie too (a nonce of the right shape), and the module's own key id shape.
    const pair = await csrfFor(server, confirmPath, as('alice'));
    const { token } = forgedToken();
    expectForged(await postForm(server, confirmPath, { action: 'confirm' }, { ...pair, token }, as('alice')), token);
    expect(loud(logger, from)).toEqual([]);
    for (const { elicitationId } of [confirm, apiKey, file]) expect((await service.getStatus(elicitationId))?.status).toBe('pending');
    // The page's own token still works afterwards.
    expect((await postForm(server, confirmPath, { action: 'confirm' }, pair, as('alice'))).status).toBe(200);
  });
});

describeRedis('a token under a key id another live instance announced (two apps on one Redis)', () => {
  const prefix = `e2e-csrfkeys-${randomUUID().slice(0, 8)}`;
  const [K1, K2] = [randomBytes(32), randomBytes(32)];
  const [ID1, ID2] = [K1, K2].map(keyIdOf);
  const logger = new RecordingLogger();
  let a: { app: INestApplication<Server>; service: ElicitationService };
  let b: { app: INestApplication<Server>; service: ElicitationService };

  const onRedis = (keys: Buffer[], extra: { logger?: RecordingLogger } = {}) =>
    startPageApp({ store: new RedisElicitationStore(REDIS_URL, { keyPrefix: prefix }), encryptionKey: keys }, extra);

  beforeAll(async () => {
    // A holds [K1]; B, started after it, seals under K2, which A lacks (a warned configuration, as in a rotation done
    // in one deploy): A cannot check B's tokens.
    a = await onRedis([K1], { logger });
    // Nest's logger is one per process: B logs to the same recorder.
    b = await onRedis([K2, K1], { logger });
  });
  afterAll(async () => {
    await b?.app.close();
    await a?.app.close();
    const redis = new Redis(REDIS_URL);
    await deletePrefix(redis, prefix);
    await redis.quit();
  });

  it('answers 503 "configuration problem", with a warning naming the key id at most once per interval', async () => {
    const created = await a.service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop?', userId: 'alice' });
    const path = new URL(created.url).pathname;
    // Rendered on B: its token is signed under K2.
    const fromB = await csrfFor(b.app.getHttpServer(), path, as('alice'));
    expect(fromB.token.startsWith(`${ID2}.`)).toBe(true);
    const from = logger.lines.length;
    for (let i = 0; i < 5; i++) {
      const res = await postForm(a.app.getHttpServer(), path, { action: 'confirm' }, fromB, as('alice'));
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 503, type: HTML });
      expect(res.text).toContain(escaped(PAGE_MESSAGES.errors.keyMismatch));
      expect(res.text).not.toContain(ID2);
    }
    const warnings = loud(logger, from).filter((line) => line.includes(`CSRF token signed under key id ${ID2}`));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warn .*encryptionKey/);
    expect(warnings[0]).toContain(ID1);
    for (const key of [K1, K2]) expect(logger.lines.join('\n')).not.toContain(key.toString('base64'));
    expect((await a.service.getStatus(created.elicitationId))?.status).toBe('pending');
    // Rendered on A and posted on B: accepted (B holds K1).
    const fromA = await csrfFor(a.app.getHttpServer(), path, as('alice'));
    expect((await postForm(b.app.getHttpServer(), path, { action: 'confirm' }, fromA, as('alice'))).status).toBe(200);
  });

  it('a key id no live instance announced is still a forged post there: 403, no warning', async () => {
    const created = await a.service.createUrlElicitation({ kind: 'confirm', message: 'Deploy shop?', userId: 'alice' });
    const path = new URL(created.url).pathname;
    const from = logger.lines.length;
    const keyIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { keyId, token } = forgedToken();
      keyIds.push(keyId);
      expectForged(
        await request(a.app.getHttpServer()).post(path).set(as('alice')).type('form').send({ _csrf: token, action: 'confirm' }),
        token,
      );
    }
    // (Reading the live rings again may repeat what the instances already said of each other's rings, nothing more.)
    expect(loud(logger, from).filter((line) => line.includes('CSRF') || keyIds.some((id) => line.includes(id)))).toEqual([]);
  });
});
