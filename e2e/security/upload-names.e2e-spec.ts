/**
 * Uploaded file names (#28, item 10) over real HTTP: a file page post whose file name carries bidirectional
 * controls (RLO, LRE/PDF), zero-width characters (U+200B, U+FEFF), a C1 control (U+0085) or a decomposed "é"
 * reaches the tool (the completed answer) and an `uploadSink` as a name that reads as what it is: no such
 * character left, NFC-normalised. The multipart body is written byte by byte, so the name arrives as sent.
 */
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { ElicitationUpload } from '../../src/options/elicitation-options.interface.js';
import type { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { csrfFor } from '../support/page-form.js';
import { as, startPageApp } from '../support/page-app.js';

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

const BOUNDARY = 'names-boundary';

/** A file page's multipart body: `_csrf` first, then the file under `name` (UTF-8, as browsers send it), then `action`. */
function fileBody(token: string, name: string, bytes: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
      'utf8',
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="action"\r\n\r\nsubmit\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** Sent name → the name the tool gets. */
const NAMES: Array<[string, string, string]> = [
  ['right-to-left override (RLO)', 'invoice\u202Efdp.exe', 'invoicefdp.exe'],
  ['an embedding and its pop (LRE, PDF)', '\u202Areport\u202C.pdf', 'report.pdf'],
  ['zero-width space and byte order mark', 'in\u200Bvoice\uFEFF.pdf', 'invoice.pdf'],
  ['a C1 control (next line, U+0085)', 'scan\u0085ned.pdf', 'scanned.pdf'],
  ['a decomposed "é"', 'Cafe\u0301.pdf', 'Caf\u00E9.pdf'],
];

async function upload(app: INestApplication<Server>, service: ElicitationService, user: string, name: string) {
  const { elicitationId, url } = await service.createUrlElicitation({ kind: 'file', userId: user, message: 'Your invoice, please.' });
  const path = new URL(url).pathname;
  const pair = await csrfFor(app.getHttpServer(), path, as(user));
  const res = await request(app.getHttpServer())
    .post(path)
    .set({ ...as(user), Cookie: pair.cookie, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` })
    .send(fileBody(pair.token, name, PDF));
  return { elicitationId, res };
}

describe('uploaded file names keep no bidi, C1 or zero-width character (#28, item 10)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;

  beforeAll(async () => {
    ({ app, service } = await startPageApp({}, { listen: true }));
  });
  afterAll(async () => {
    await app.close();
  });

  it.each(NAMES)('%s: the tool gets a name that reads as what it is', async (_case, sent, expected) => {
    const { elicitationId, res } = await upload(app, service, 'alice', sent);
    expect(res.status).toBe(200);
    const outcome = await service.getResult(elicitationId);
    expect(outcome).toMatchObject({ status: 'completed', data: { name: expected, type: 'application/pdf', size: PDF.length } });
    const name = outcome?.status === 'completed' ? String(outcome.data.name) : '';
    expect(name).toBe(name.normalize('NFC'));
    // eslint-disable-next-line no-control-regex -- control characters are what must be gone
    expect(name).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u061C\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/);
  });
});

describe('an uploadSink gets the same name (#28, item 10)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  const names: string[] = [];

  beforeAll(async () => {
    ({ app, service } = await startPageApp(
      {
        uploadSink: async (upload: ElicitationUpload) => {
          for await (const _chunk of upload.stream) void _chunk;
          names.push(upload.name);
          return `mem://uploads/${upload.elicitationId}`;
        },
      },
      { listen: true },
    ));
  });
  afterAll(async () => {
    await app.close();
  });

  it('the sink and the answer carry the cleaned name', async () => {
    const { elicitationId, res } = await upload(app, service, 'carol', 'invoice\u202Efdp.exe');
    expect(res.status).toBe(200);
    expect(names).toEqual(['invoicefdp.exe']);
    expect(await service.getResult(elicitationId)).toMatchObject({ status: 'completed', data: { name: 'invoicefdp.exe' } });
  });
});
