/**
 * File uploads (#16, `kind: 'file'`), the pure parts: the creation checks (`accept`, `maxBytes` only for `file`,
 * normalised, within `limits.maxUploadBytes`), the option checks (`limits.maxUploadBytes`, `uploadSink`), the accept
 * matching (exact, `type/*`, plain text), the type found from magic bytes (`file-type`), the page's size text and the
 * kept file name.
 */
import { describe, expect, it } from '@jest/globals';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationConfigError } from '../../src/errors/elicitation-config.error.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { formatSize } from '../../src/http/elicitation-file.controller.js';
import { fileName } from '../../src/uploads/file-name.js';
import { attachKindData, buildPendingRecord, type CreateUrlElicitationInput } from '../../src/lifecycle/create-input.validation.js';
import {
  acceptAttribute,
  acceptsPlainText,
  acceptsType,
  describeAccept,
  isPlainText,
  normaliseAccept,
  uploadSettingsOf,
} from '../../src/uploads/file-accept.js';
import { detectType } from '../../src/uploads/multipart-upload.js';
import { errorOf } from '../support/error-of.js';

const NOW = 1_750_000_000_000;
const DEV: NodeJS.ProcessEnv = { NODE_ENV: 'development' };

function optionsWith(extra: Partial<ElicitationModuleOptions> = {}) {
  return resolveElicitationOptions(
    { baseUrl: 'https://mcp.example.com', encryptionKey: Buffer.alloc(32, 3), resolvePageUser: () => 'alice', ...extra },
    'elicit',
    DEV,
  ).options;
}
const options = optionsWith();

function created(patch: Partial<CreateUrlElicitationInput>, resolved = options): ElicitationRecord {
  const input: CreateUrlElicitationInput = { kind: 'file', message: 'Upload it', userId: 'alice', ...patch };
  const record = buildPendingRecord(input, resolved, NOW);
  expect(attachKindData(record, input, resolved)).toBeUndefined();
  return record;
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

describe('creating a file elicitation', () => {
  it('keeps the normalised accept list and maxBytes in metadata.upload; defaults: any type, limits.maxUploadBytes', () => {
    expect(created({ accept: [' Application/PDF ', 'image/*', 'application/pdf'], maxBytes: 1000 }).metadata.upload).toEqual({
      accept: ['application/pdf', 'image/*'],
      maxBytes: 1000,
    });
    expect(created({}).metadata.upload).toEqual({ accept: null, maxBytes: 5 * 1024 * 1024 });
    expect(created({}, optionsWith({ limits: { maxUploadBytes: 1234 } })).metadata.upload).toEqual({ accept: null, maxBytes: 1234 });
    expect(created({ type: 'invoice' }).type).toBe('invoice');
    expect(created({}).type).toBe('file');
  });

  it.each([
    [[], 'empty'],
    [['pdf'], 'no slash'],
    [['*/*'], 'any type'],
    [['image/png; q=1'], 'parameters'],
    [[42], 'not a string'],
    ['image/png', 'not an array'],
    [Array.from({ length: 21 }, (_, i) => `image/x${i}`), 'too many'],
  ] as Array<[unknown, string]>)('refuses accept %j (%s)', (accept) => {
    const error = errorOf(() => created({ accept: accept as string[] }));
    expect(error).toBeInstanceOf(ElicitationInputError);
    expect((error as ElicitationInputError).field).toBe('accept');
  });

  it.each([0, -1, 1.5, 5 * 1024 * 1024 + 1, '100'])('refuses maxBytes %j', (maxBytes) => {
    const error = errorOf(() => created({ maxBytes: maxBytes as number }));
    expect((error as ElicitationInputError).field).toBe('maxBytes');
  });

  it('refuses accept and maxBytes on the other kinds, naming the field', () => {
    const cases: Array<[string, Partial<CreateUrlElicitationInput>]> = [
      ['accept', { accept: ['image/*'] }],
      ['maxBytes', { maxBytes: 10 }],
    ];
    for (const [field, patch] of cases) {
      const input: CreateUrlElicitationInput = { kind: 'api-key', message: 'm', userId: 'alice', ...patch };
      const record = buildPendingRecord(input, options, NOW);
      const error = errorOf(() => attachKindData(record, input, options));
      expect((error as ElicitationInputError).field).toBe(field);
      expect(error.message).toMatch(/only for kind "file"/);
    }
  });
});

describe('options', () => {
  it('limits.maxUploadBytes: 5 MiB by default, a positive whole number', () => {
    expect(options.limits.maxUploadBytes).toBe(5_242_880);
    expect(optionsWith({ limits: { maxUploadBytes: 10 } }).limits.maxUploadBytes).toBe(10);
    const error = errorOf(() => optionsWith({ limits: { maxUploadBytes: 0 } }));
    expect(error).toBeInstanceOf(ElicitationConfigError);
    expect(error.message).toContain('limits.maxUploadBytes');
  });

  it('limits.uploadBufferBytes: 64 MiB by default (maxUploadBytes when larger), at least maxUploadBytes', () => {
    expect(options.limits.uploadBufferBytes).toBe(64 * 1024 * 1024);
    expect(optionsWith({ limits: { uploadBufferBytes: 10 * 1024 * 1024 } }).limits.uploadBufferBytes).toBe(10 * 1024 * 1024);
    expect(optionsWith({ limits: { maxUploadBytes: 100 * 1024 * 1024 } }).limits.uploadBufferBytes).toBe(100 * 1024 * 1024);
    for (const bad of [0, -1, 1.5, 'lots']) {
      const error = errorOf(() => optionsWith({ limits: { uploadBufferBytes: bad as number } }));
      expect(error).toBeInstanceOf(ElicitationConfigError);
      expect(error.message).toContain('"limits.uploadBufferBytes" must be a positive whole number');
    }
    const small = errorOf(() => optionsWith({ limits: { uploadBufferBytes: 1024 * 1024 } }));
    expect(small).toBeInstanceOf(ElicitationConfigError);
    expect(small.message).toBe(
      'ElicitationModule option "limits.uploadBufferBytes" must be at least limits.maxUploadBytes (5242880): a file of that size could never be received, got 1048576.',
    );
  });

  it('uploadSink: a function, kept as given', () => {
    const sink = () => Promise.resolve('ref');
    expect(optionsWith({ uploadSink: sink }).uploadSink).toBe(sink);
    expect(options.uploadSink).toBeUndefined();
    const error = errorOf(() => optionsWith({ uploadSink: 'bucket' as never }));
    expect(error.message).toContain('uploadSink');
  });
});

describe('accept matching', () => {
  it('matches exact types and type/*, never a prefix of another major type', () => {
    const accept = normaliseAccept(['application/pdf', 'image/*']);
    expect(accept.ok).toBe(true);
    const list = (accept as { value: string[] }).value;
    expect(acceptsType(list, 'application/pdf')).toBe(true);
    expect(acceptsType(list, 'image/png')).toBe(true);
    expect(acceptsType(list, 'IMAGE/JPEG')).toBe(true);
    expect(acceptsType(list, 'application/zip')).toBe(false);
    expect(acceptsType(list, 'imagex/png')).toBe(false);
    expect(acceptsType(['image/*'], 'image')).toBe(false);
    expect(acceptsType(null, 'application/zip')).toBe(true);
  });

  it('plain text only when text/plain or text/* is listed, and only for UTF-8 without control characters', () => {
    expect(acceptsPlainText(null)).toBe(false);
    expect(acceptsPlainText(['text/*'])).toBe(true);
    expect(acceptsPlainText(['text/plain'])).toBe(true);
    expect(acceptsPlainText(['text/csv'])).toBe(false);
    expect(isPlainText(Buffer.from('name,amount\r\nÄrger,3\tx\n'))).toBe(true);
    expect(isPlainText(Buffer.from([0xff, 0xfe, 0x41]))).toBe(false);
    expect(isPlainText(Buffer.from('a\u0000b'))).toBe(false);
  });

  it('finds the type from the bytes, not the name', async () => {
    expect(await detectType(PNG, null)).toBe('image/png');
    expect(await detectType(Buffer.from('%PDF-1.4\n%%EOF\n'), null)).toBe('application/pdf');
    expect(await detectType(Buffer.from('hello'), null)).toBeUndefined();
    expect(await detectType(Buffer.from('hello'), ['text/plain'])).toBe('text/plain');
    expect(await detectType(Buffer.from([0, 1, 2, 3]), ['text/plain'])).toBeUndefined();
  });

  it('says the accepted types for people and for the input', () => {
    expect(describeAccept(['application/pdf', 'image/*', 'application/vnd.ms-excel'])).toBe('PDF, image, application/vnd.ms-excel');
    expect(acceptAttribute(['application/pdf', 'image/*'])).toBe('application/pdf,image/*');
    expect(acceptAttribute(null)).toBeNull();
    expect(uploadSettingsOf({ upload: { accept: ['image/*'], maxBytes: 9 } })).toEqual({ accept: ['image/*'], maxBytes: 9 });
    expect(uploadSettingsOf({})).toEqual({ accept: null, maxBytes: 0 });
  });
});

describe('page texts', () => {
  it('formats sizes in the page locale', () => {
    expect(formatSize('en', 5 * 1024 * 1024)).toBe('5 MB');
    expect(formatSize('en', 1536)).toBe('1.5 kB');
    expect(formatSize('en', 10)).toBe('10 byte');
    expect(formatSize('de', 1.5 * 1024 * 1024)).toBe('1,5 MB');
  });

  it('keeps the last segment of a file name, without control characters', () => {
    expect(fileName('C:\\Users\\me\\invoice.pdf')).toBe('invoice.pdf');
    expect(fileName('../../etc/passwd')).toBe('passwd');
    expect(fileName('a\u0000b\nc.txt')).toBe('abc.txt');
    expect(fileName('')).toBe('file');
    expect(fileName('x'.repeat(300))).toHaveLength(255);
  });

  it('keeps no bidi, C1 or zero-width character in a file name, NFC-normalised (#28, item 10)', () => {
    // A PDF named to display as "invoiceexe.pdf" reads as what it is.
    expect(fileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    // Embeddings and their pop, isolates, marks.
    expect(fileName('\u202Areport\u202C.pdf')).toBe('report.pdf');
    expect(fileName('\u2067x\u2069\u200F.png')).toBe('x.png');
    // Zero-width space, word joiner and byte order mark; the joiners scripts need stay.
    expect(fileName('in\u200Bvoice\u2060\uFEFF.pdf')).toBe('invoice.pdf');
    expect(fileName('\u0646\u0627\u200C\u0645\u0647.pdf')).toBe('\u0646\u0627\u200C\u0645\u0647.pdf');
    // C1 controls, the next-line among them, and the Unicode line breaks.
    expect(fileName('a\u0085b\u009Bc\u2028d.pdf')).toBe('abcd.pdf');
    // A decomposed "é" is one character.
    expect(fileName('Cafe\u0301.pdf')).toBe('Caf\u00E9.pdf');
    expect(fileName('Cafe\u0301.pdf')).toHaveLength(8);
    // Nothing visible left: the default name.
    expect(fileName('\u202E\u200B\uFEFF')).toBe('file');
  });
});
