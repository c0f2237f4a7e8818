/**
 * Uploads held in memory are bounded (#28, item 5), over real HTTP on Express and Fastify: file page posts whose
 * bodies are sent slowly (a raw `http.request` writing part of the file, then holding) stand for uploads held open.
 * A second upload to an elicitation whose first is in flight gets 409 (a readable page, its body read and dropped)
 * and the first completes; uploads past `limits.uploadBufferBytes` get 503 with `Retry-After` while the admitted
 * ones complete, and the bytes held (the module's own count, `ElicitationUploads.usage()`) never pass the budget;
 * nothing stored is lost (a refused elicitation stays pending and takes a later upload); a client that hangs up
 * gives its turn back. Every request a test opens is finished or destroyed, every wait has a deadline.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ElicitationUploads } from '../../src/http/elicitation-uploads.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { csrfFor, type CsrfPair } from '../support/page-form.js';
import { as, pageTestOptions } from '../support/page-app.js';

const KIB = 1024;
const BOUNDARY = 'bounds-boundary';
/** Each upload's file: a PDF (found by its magic bytes) padded to this size. */
const FILE_BYTES = 200_000;
/** What each held upload sends before it holds. */
const HEAD_BYTES = 100_000;

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** A PDF of `FILE_BYTES` bytes, different for each `seed` (so each answer's SHA-256 tells whose it is). */
function fileOf(seed: number): Buffer {
  const padding = Buffer.alloc(FILE_BYTES - PDF.length, 0x0a);
  padding.write(`% upload ${seed}\n`, 0);
  return Buffer.concat([PDF, padding]);
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A file page's multipart body around a file: `_csrf` first, then the file, then `action=submit`. */
function bodyParts(token: string): { before: Buffer; after: Buffer } {
  return {
    before: Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="invoice.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    after: Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="action"\r\n\r\nsubmit\r\n--${BOUNDARY}--\r\n`),
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** An upload whose body is sent in two steps: the start now (the token and `HEAD_BYTES` of the file), the rest on `finish`. */
interface HeldUpload {
  /** The answer; settles with status 0 when the request failed (e.g. after `abort`). */
  readonly answer: Promise<Answer>;
  /** Whether an answer came (before the body was finished, for a refused upload). */
  answered(): boolean;
  /** Sends the rest of the body. */
  finish(): void;
  /** Hangs up mid-body. */
  abort(): void;
}

function holdUpload(url: string, path: string, user: string, pair: CsrfPair, file: Buffer): HeldUpload {
  const { before, after } = bodyParts(pair.token);
  const req = http.request(`${url}${path}`, {
    method: 'POST',
    agent: false,
    headers: {
      ...as(user),
      Cookie: pair.cookie,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': String(before.length + file.length + after.length),
    },
  });
  let done = false;
  const answer = new Promise<Answer>((resolve) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        done = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', () => resolve({ status: 0, headers: {}, text: '' }));
    });
    req.on('error', () => {
      done = true;
      resolve({ status: 0, headers: {}, text: '' });
    });
  });
  req.write(Buffer.concat([before, file.subarray(0, HEAD_BYTES)]));
  let ended = false;
  return {
    answer,
    answered: () => done,
    finish: () => {
      if (ended) return;
      ended = true;
      req.end(Buffer.concat([file.subarray(HEAD_BYTES), after]));
    },
    abort: () => {
      ended = true;
      req.destroy();
    },
  };
}

/** Waits until `check()` holds, at most `ms`. */
async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type Adapter = 'express' | 'fastify';

/** A listening app with the module on `adapter` (header identity, no throttle), and its upload count. */
async function start(adapter: Adapter, options: Partial<ElicitationModuleOptions> = {}) {
  const moduleRef = await Test.createTestingModule({ imports: [ElicitationModule.forRoot(pageTestOptions(options))] }).compile();
  const app: INestApplication =
    adapter === 'fastify'
      ? moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false })
      : moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, service: app.get(ElicitationService), uploads: app.get(ElicitationUploads) };
}

/** A full upload in one go (supertest). */
async function upload(url: string, path: string, user: string, file: Buffer) {
  const pair = await csrfFor(url, path, as(user));
  const { before, after } = bodyParts(pair.token);
  return request(url)
    .post(path)
    .set({ ...as(user), Cookie: pair.cookie, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` })
    .send(Buffer.concat([before, file, after]));
}

describe.each(['express', 'fastify'] as const)('uploads held in memory are bounded on %s (#28, item 5)', (adapter) => {
  let app: INestApplication | undefined;
  const held: HeldUpload[] = [];

  afterEach(async () => {
    // Whatever a test left open is hung up before the app closes.
    for (const h of held.splice(0)) h.abort();
    await app?.close();
    app = undefined;
  });

  it('a second upload to one elicitation gets 409 while the first is in flight; the first completes', async () => {
    const started = await start(adapter);
    app = started.app;
    const { url, service, uploads } = started;
    const { elicitationId, url: pageUrl } = await service.createUrlElicitation({ kind: 'file', userId: 'alice', message: 'Your invoice' });
    const path = new URL(pageUrl).pathname;
    const first = fileOf(1);
    const slow = holdUpload(url, path, 'alice', await csrfFor(url, path, as('alice')), first);
    held.push(slow);
    await until(() => uploads.usage().inFlight === 1 && uploads.usage().heldBytes > 0, 'the first upload to be admitted');

    const second = await upload(url, path, 'alice', fileOf(2));
    expect(second.status).toBe(409);
    expect(second.headers['content-type']).toMatch(/^text\/html/);
    expect(second.text).toContain('Upload in progress');
    expect(second.text).toContain('Another file for this request is still being received. This one was not saved.');
    expect(slow.answered()).toBe(false);
    // The second body was read and dropped: only the first's bytes are held.
    expect(uploads.usage()).toMatchObject({ inFlight: 1, reservedBytes: expect.any(Number) });
    expect(uploads.usage().heldBytes).toBeLessThanOrEqual(HEAD_BYTES);
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');

    slow.finish();
    const answer = await slow.answer;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('The file was received.');
    expect(await service.getResult(elicitationId)).toMatchObject({
      status: 'completed',
      data: { size: FILE_BYTES, sha256: sha256(first) },
    });
    expect(uploads.usage()).toMatchObject({ inFlight: 0, reservedBytes: 0, heldBytes: 0 });
    expect(uploads.usage().peakHeldBytes).toBe(FILE_BYTES);
  }, 30_000);

  it('uploads past limits.uploadBufferBytes get 503 with Retry-After; the bytes held stay within it; nothing is lost', async () => {
    const capacity = 640 * KIB;
    const started = await start(adapter, { limits: { maxUploadBytes: 256 * KIB, uploadBufferBytes: capacity } });
    app = started.app;
    const { url, service, uploads } = started;
    const count = 8;
    const pages: Array<{ elicitationId: string; path: string; file: Buffer; upload?: HeldUpload }> = [];
    for (let i = 0; i < count; i++) {
      const created = await service.createUrlElicitation({ kind: 'file', userId: 'alice', message: `Invoice ${i}` });
      pages.push({ elicitationId: created.elicitationId, path: new URL(created.url).pathname, file: fileOf(10 + i) });
    }
    const pairs = await Promise.all(pages.map((p) => csrfFor(url, p.path, as('alice'))));
    pages.forEach((p, i) => held.push((p.upload = holdUpload(url, p.path, 'alice', pairs[i], p.file))));

    // Each reserves its Content-Length (a little over 200 kB): three fit in 640 KiB, five are refused at once.
    await until(() => pages.filter((p) => p.upload!.answered()).length === count - 3, 'five refusals');
    await until(() => uploads.usage().inFlight === 3, 'three uploads admitted');
    const refused = pages.filter((p) => p.upload!.answered());
    const admitted = pages.filter((p) => !p.upload!.answered());
    for (const p of refused) {
      const answer = await p.upload!.answer;
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.text).toContain('This server is receiving too many files right now. Nothing was saved. Wait 5 seconds');
    }
    expect(uploads.usage().reservedBytes).toBeLessThanOrEqual(capacity);

    // Every body is sent whole: the refused ones are read and dropped, the admitted ones complete.
    for (const p of pages) p.upload!.finish();
    for (const p of admitted) {
      expect((await p.upload!.answer).status).toBe(200);
      expect(await service.getResult(p.elicitationId)).toMatchObject({ status: 'completed', data: { sha256: sha256(p.file) } });
    }
    const usage = uploads.usage();
    // What was really held: the three admitted uploads at once, never more than the budget (eight would be 1.6 MB).
    expect(usage.peakHeldBytes).toBeGreaterThanOrEqual(3 * HEAD_BYTES);
    expect(usage.peakHeldBytes).toBeLessThanOrEqual(capacity);
    expect(usage).toMatchObject({ inFlight: 0, reservedBytes: 0, heldBytes: 0 });

    // Nothing stored was lost: the refused elicitations are still pending and take the file once there is room.
    for (const p of refused) expect((await service.getStatus(p.elicitationId))?.status).toBe('pending');
    const retried = refused[0];
    expect((await upload(url, retried.path, 'alice', retried.file)).status).toBe(200);
    expect(await service.getResult(retried.elicitationId)).toMatchObject({ status: 'completed', data: { sha256: sha256(retried.file) } });
  }, 30_000);

  it('a client that hangs up mid-body gives its turn and its bytes back', async () => {
    const started = await start(adapter);
    app = started.app;
    const { url, service, uploads } = started;
    const { elicitationId, url: pageUrl } = await service.createUrlElicitation({ kind: 'file', userId: 'alice', message: 'Your invoice' });
    const path = new URL(pageUrl).pathname;
    const slow = holdUpload(url, path, 'alice', await csrfFor(url, path, as('alice')), fileOf(3));
    held.push(slow);
    await until(() => uploads.usage().inFlight === 1, 'the upload to be admitted');
    slow.abort();
    await until(() => uploads.usage().inFlight === 0, 'the hung-up upload to be released');
    expect(uploads.usage()).toMatchObject({ reservedBytes: 0, heldBytes: 0 });
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
    const again = fileOf(4);
    expect((await upload(url, path, 'alice', again)).status).toBe(200);
    expect(await service.getResult(elicitationId)).toMatchObject({ status: 'completed', data: { sha256: sha256(again) } });
  }, 30_000);
});
