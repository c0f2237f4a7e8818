/**
 * File uploads (#16, `kind: 'file'`) over real HTTP, on Express and on Fastify (the demo app): a real upload from
 * Chromium (`setInputFiles`) completes the elicitation and the waiting side sees the answer (the content decodes to
 * the same bytes, the SHA-256 is right); a file over `maxBytes` is 413 and nothing is stored; a PNG named `x.pdf`
 * where only PDF is accepted is 415; no CSRF token, or a file before it, is 403; another user is 403; an empty post
 * 400; Cancel (url-encoded as the page sends it, or multipart) declines. With an `uploadSink` (a real app on a free
 * port): the sink receives the bytes as a stream and the answer carries its reference; a failing sink is 503 and
 * nothing is stored.
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import type { ElicitationUpload } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { haveChromium, launchPageBrowser, type PageBrowser } from '../support/page-browser.js';
import { csrfFor } from '../support/page-form.js';
import { as, startPageApp } from '../support/page-app.js';

/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** A small, valid PDF (one empty page). */
const PDF = Buffer.from(
  [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
    'trailer << /Root 1 0 R >>',
    '%%EOF',
    '',
  ].join('\n'),
);

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const alice = { Cookie: 'demo_user=alice' };
const bob = { Cookie: 'demo_user=bob' };

/** Posts a multipart file form with a CSRF pair: `_csrf` first (as the page's form sends it), then the file, then `action`. */
function postFile(
  target: string | Server,
  path: string,
  pair: { token: string; cookie: string } | undefined,
  file: { bytes: Buffer; name: string; type: string } | undefined,
  headers: Record<string, string>,
  action = 'submit',
): request.Test {
  const req = request(target)
    .post(path)
    .set({ ...headers, Cookie: [headers.Cookie, pair?.cookie].filter(Boolean).join('; ') });
  if (pair) void req.field('_csrf', pair.token);
  if (file) void req.attach('file', file.bytes, { filename: file.name, contentType: file.type });
  return req.field('action', action);
}

describe.each(['express', 'fastify'] as const)('file page on %s (demo app)', (adapter) => {
  let demo: DemoApp;
  let service: ElicitationService;
  let browser: PageBrowser | undefined;

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, adapter, createPerMinute: 1000 });
    service = demo.app.get(ElicitationService);
    if (haveChromium()) browser = await launchPageBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await demo.app.close();
  });

  const create = (input: { accept?: string[]; maxBytes?: number } = {}) =>
    service.createUrlElicitation({ kind: 'file', userId: 'alice', message: 'Upload your invoice, please.', ...input });
  const pathOf = (url: string): string => new URL(url).pathname;

  it('renders a labelled file input with the accepted types and the size', async () => {
    const { url } = await create({ accept: ['application/pdf', 'image/*'], maxBytes: 2 * 1024 * 1024 });
    const res = await request(demo.url).get(pathOf(url)).set(alice).expect(200);
    expect(res.text).toContain('enctype="multipart/form-data"');
    expect(res.text).toMatch(/<label for="file">File<\/label>/);
    expect(res.text).toMatch(/<input type="file" id="file" name="file" accept="application\/pdf,image\/\*"/);
    expect(res.text).toContain('Accepted: PDF, image.');
    expect(res.text).toContain('At most 2 MB.');
  });

  it('a real upload from Chromium completes the elicitation with the same bytes and their SHA-256', async () => {
    if (!browser) throw new Error('Chromium is needed at /usr/bin/chromium');
    const { elicitationId, url } = await create({ accept: ['application/pdf'] });
    const waiting = service.waitForCompletion(elicitationId, { timeoutMs: 30_000 });
    const result = await browser.submit(url, 'alice', async (page) => {
      await page.setInputFiles('#file', { name: 'invoice.pdf', mimeType: 'application/pdf', buffer: PDF });
    });
    expect(result.status).toBe(200);
    expect(result.text).toContain('The file was received.');
    expect(result.errors).toEqual([]);
    const outcome = await waiting;
    expect(outcome.status).toBe('completed');
    const data = (outcome as { data: Record<string, unknown> }).data;
    expect(data).toMatchObject({ name: 'invoice.pdf', type: 'application/pdf', size: PDF.length, sha256: sha256(PDF) });
    expect(Buffer.from(String(data.content), 'base64').equals(PDF)).toBe(true);
    // The answer read back from the store (sealed there) is the same.
    const stored = await service.getResult(elicitationId);
    expect(stored).toMatchObject({ status: 'completed', data: { sha256: sha256(PDF) } });
    // Sealed at rest even in the memory store (a file is no answer to keep in the clear).
    const record = await demo.app.get(ElicitationStore).get(elicitationId, Date.now());
    expect(Object.keys(record?.data ?? {})).toEqual(['$sealed']);
    expect(JSON.stringify(record?.data)).not.toContain(PDF.toString('base64').slice(0, 24));
  });

  it('a file over maxBytes is 413 and the elicitation stays pending', async () => {
    const { elicitationId, url } = await create({ maxBytes: 1024 });
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const big = Buffer.concat([PNG, Buffer.alloc(2048, 7)]);
    const res = await postFile(demo.url, pathOf(url), pair, { bytes: big, name: 'big.png', type: 'image/png' }, alice);
    expect(res.status).toBe(413);
    expect(res.text).toContain('The file is larger than 1 kB. Nothing was saved.');
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
  });

  it('a PNG named x.pdf where only PDF is accepted is 415 (the type is read from the bytes)', async () => {
    const { elicitationId, url } = await create({ accept: ['application/pdf'] });
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const res = await postFile(demo.url, pathOf(url), pair, { bytes: PNG, name: 'x.pdf', type: 'application/pdf' }, alice);
    expect(res.status).toBe(415);
    expect(res.text).toContain('This kind of file is not accepted (accepted: PDF). Nothing was saved.');
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
  });

  it('accepts image/* by the content, whatever the name and the claimed type', async () => {
    const { elicitationId, url } = await create({ accept: ['image/*'] });
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const res = await postFile(demo.url, pathOf(url), pair, { bytes: PNG, name: 'photo.txt', type: 'text/plain' }, alice);
    expect(res.status).toBe(200);
    const outcome = await service.getResult(elicitationId);
    expect(outcome).toMatchObject({
      status: 'completed',
      data: { name: 'photo.txt', type: 'image/png', size: PNG.length, sha256: sha256(PNG) },
    });
  });

  it('no CSRF token, or a file before it, is 403 and nothing is stored', async () => {
    const { elicitationId, url } = await create();
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const none = await postFile(
      demo.url,
      pathOf(url),
      { token: '', cookie: pair.cookie },
      { bytes: PNG, name: 'a.png', type: 'image/png' },
      alice,
    );
    expect(none.status).toBe(403);
    const noField = await postFile(
      demo.url,
      pathOf(url),
      undefined,
      { bytes: PNG, name: 'a.png', type: 'image/png' },
      {
        Cookie: `${alice.Cookie}; ${pair.cookie}`,
      },
    );
    expect(noField.status).toBe(403);
    // The file part first, the token after it.
    const fileFirst = await request(demo.url)
      .post(pathOf(url))
      .set({ Cookie: `${alice.Cookie}; ${pair.cookie}` })
      .attach('file', PNG, { filename: 'a.png', contentType: 'image/png' })
      .field('_csrf', pair.token);
    expect(fileFirst.status).toBe(403);
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
  });

  it("another user's post is 403", async () => {
    const { elicitationId, url } = await create();
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const res = await postFile(demo.url, pathOf(url), pair, { bytes: PNG, name: 'a.png', type: 'image/png' }, bob);
    expect(res.status).toBe(403);
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
  });

  it('no file is 400, an empty file is 400, two files are 413', async () => {
    const { elicitationId, url } = await create();
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const none = await postFile(demo.url, pathOf(url), pair, undefined, alice);
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose a file.');
    const empty = await postFile(demo.url, pathOf(url), pair, { bytes: Buffer.alloc(0), name: 'e.png', type: 'image/png' }, alice);
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('The file is empty. Nothing was saved.');
    const two = await postFile(demo.url, pathOf(url), pair, { bytes: PNG, name: 'a.png', type: 'image/png' }, alice).attach('file', PNG, {
      filename: 'b.png',
      contentType: 'image/png',
    });
    expect(two.status).toBe(413);
    expect(two.text).toContain('Send one file only. Nothing was saved.');
    expect((await service.getStatus(elicitationId))?.status).toBe('pending');
  });

  it('a Content-Length over the upload limit is 413 before anything is read', async () => {
    const { url } = await create();
    const pair = await csrfFor(demo.url, pathOf(url), alice);
    const res = await request(demo.url)
      .post(pathOf(url))
      .set({
        Cookie: `${alice.Cookie}; ${pair.cookie}`,
        'Content-Type': 'multipart/form-data; boundary=x',
        'Content-Length': String(64 * 1024 * 1024),
      })
      .send('--x\r\n')
      .catch((error: { status?: number; response?: request.Response }) => error.response);
    // The server answers before the body it announced arrived.
    expect(res?.status).toBe(413);
  });

  it('Cancel declines: url-encoded (the page button) and multipart', async () => {
    const first = await create();
    const pair = await csrfFor(demo.url, pathOf(first.url), alice);
    const res = await request(demo.url)
      .post(pathOf(first.url))
      .set({ Cookie: `${alice.Cookie}; ${pair.cookie}` })
      .type('form')
      .send({ _csrf: pair.token, action: 'cancel' });
    expect(res.status).toBe(200);
    expect((await service.getStatus(first.elicitationId))?.status).toBe('declined');

    const second = await create();
    const pair2 = await csrfFor(demo.url, pathOf(second.url), alice);
    const multi = await postFile(demo.url, pathOf(second.url), pair2, { bytes: PNG, name: 'a.png', type: 'image/png' }, alice, 'cancel');
    expect(multi.status).toBe(200);
    expect((await service.getResult(second.elicitationId))?.status).toBe('declined');
  });

  it('creation refuses accept and maxBytes on other kinds, and a maxBytes over limits.maxUploadBytes', async () => {
    await expect(service.createUrlElicitation({ kind: 'confirm', userId: 'alice', message: 'm', accept: ['image/*'] })).rejects.toThrow(
      /accept/,
    );
    await expect(create({ maxBytes: 5 * 1024 * 1024 + 1 })).rejects.toThrow(/maxBytes/);
    await expect(create({ accept: ['*/*'] })).rejects.toThrow(/accept/);
  });
});

describe('file page with an uploadSink', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  const received: Array<{ upload: Omit<ElicitationUpload, 'stream'>; bytes: Buffer }> = [];
  let failing = false;

  beforeAll(async () => {
    ({ app, service } = await startPageApp(
      {
        uploadSink: async (upload: ElicitationUpload) => {
          const chunks: Buffer[] = [];
          for await (const chunk of upload.stream) chunks.push(chunk as Buffer);
          if (failing) throw new Error('bucket unavailable');
          const { stream: _stream, ...rest } = upload;
          received.push({ upload: rest, bytes: Buffer.concat(chunks) });
          return `mem://uploads/${upload.elicitationId}`;
        },
      },
      { listen: true },
    ));
  });
  afterAll(async () => {
    await app.close();
  });

  it('the sink receives the stream and the answer carries its reference (no content)', async () => {
    const { elicitationId, url } = await service.createUrlElicitation({
      kind: 'file',
      userId: 'carol',
      message: 'Your photo',
      accept: ['image/png'],
    });
    const path = new URL(url).pathname;
    const pair = await csrfFor(app.getHttpServer(), path, as('carol'));
    const res = await postFile(app.getHttpServer(), path, pair, { bytes: PNG, name: 'me.png', type: 'image/png' }, as('carol'));
    expect(res.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0].upload).toMatchObject({ elicitationId, userId: 'carol', name: 'me.png', type: 'image/png', size: PNG.length });
    expect(received[0].bytes.equals(PNG)).toBe(true);
    const outcome = await service.getResult(elicitationId);
    expect(outcome).toEqual({
      status: 'completed',
      data: { name: 'me.png', type: 'image/png', size: PNG.length, sha256: sha256(PNG), ref: `mem://uploads/${elicitationId}` },
    });
  });

  it('a failing sink is 503 and the elicitation stays pending', async () => {
    failing = true;
    try {
      const { elicitationId, url } = await service.createUrlElicitation({ kind: 'file', userId: 'carol', message: 'Your photo' });
      const path = new URL(url).pathname;
      const pair = await csrfFor(app.getHttpServer(), path, as('carol'));
      const res = await postFile(app.getHttpServer(), path, pair, { bytes: PNG, name: 'me.png', type: 'image/png' }, as('carol'));
      expect(res.status).toBe(503);
      expect((await service.getStatus(elicitationId))?.status).toBe('pending');
    } finally {
      failing = false;
    }
  });
});

describe('fuzzing the file endpoint (fast-check, fixed seed)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  const ids: string[] = [];
  let pair: { token: string; cookie: string };
  let otherToken: string;

  beforeAll(async () => {
    ({ app, service } = await startPageApp({ limits: { maxUploadBytes: 64 * 1024 } }, { listen: true }));
    for (const accept of [undefined, ['application/pdf'], ['image/*', 'text/plain']]) {
      ids.push(
        (await service.createUrlElicitation({ kind: 'file', userId: 'alice', message: 'fuzz', accept, maxBytes: 4096 })).elicitationId,
      );
    }
    const other = await service.createUrlElicitation({ kind: 'file', userId: 'alice', message: 'other' });
    pair = await csrfFor(app.getHttpServer(), `/elicit/${ids[0]}/file`, as('alice'));
    // A real token, but of another elicitation: never a valid pair for the fuzzed ones.
    otherToken = (await csrfFor(app.getHttpServer(), `/elicit/${other.elicitationId}/file`, as('alice'))).token;
  });
  afterAll(async () => {
    await app.close();
  });

  it('any multipart post with a token that is not the page’s own: no 5xx, an HTML page, nothing changed', async () => {
    const part = fc.oneof(
      fc.record({
        kind: fc.constant('field' as const),
        name: fc.constantFrom('_csrf', 'action', 'file', 'x', ''),
        value: fc.string({ maxLength: 60 }),
      }),
      fc.record({
        kind: fc.constant('file' as const),
        name: fc.constantFrom('file', 'other', '_csrf'),
        filename: fc.oneof(fc.constantFrom('a.pdf', '', '../../x', 'a"b.png'), fc.string({ maxLength: 20 })),
        type: fc.constantFrom('application/pdf', 'image/png', 'text/plain', '', 'x'),
        bytes: fc.oneof(
          fc.constant(PNG),
          fc.constant(PDF),
          fc.uint8Array({ maxLength: 6000 }).map((a) => Buffer.from(a)),
        ),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ids),
        fc.constantFrom('', 'tampered', 'other', 'garbage'),
        fc.array(part, { maxLength: 5 }),
        fc.constantFrom('xyz', 'a'.repeat(70), ''),
        fc.boolean(),
        fc.constantFrom('alice', 'bob', ''),
        async (id, tokenKind, parts, boundary, truncate, user) => {
          const token =
            tokenKind === 'tampered'
              ? pair.token.split('').reverse().join('')
              : tokenKind === 'other'
                ? otherToken
                : tokenKind === 'garbage'
                  ? 'x'.repeat(40)
                  : '';
          const chunks: Buffer[] = [];
          if (tokenKind !== '')
            chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n`));
          for (const p of parts) {
            if (p.kind === 'field') {
              chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
            } else {
              chunks.push(
                Buffer.from(
                  `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.type}\r\n\r\n`,
                ),
                p.bytes,
                Buffer.from('\r\n'),
              );
            }
          }
          chunks.push(Buffer.from(`--${boundary}--\r\n`));
          let body = Buffer.concat(chunks);
          if (truncate) body = body.subarray(0, Math.floor(body.length / 2));
          const res = await request(app.getHttpServer())
            .post(`/elicit/${id}/file`)
            .set({ ...as(user), Cookie: pair.cookie, 'Content-Type': `multipart/form-data; boundary=${boundary}` })
            .send(body);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(res.headers['content-type']).toMatch(/^text\/html/);
          expect(res.text).not.toContain(pair.token);
        },
      ),
      { seed: 16_2026, numRuns: 150 },
    );
    for (const id of ids) expect((await service.getStatus(id))?.status).toBe('pending');
  });
});
