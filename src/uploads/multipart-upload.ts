import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { acceptsPlainText, acceptsType, isPlainText } from './file-accept.js';
import { loadFileType } from './file-type.loader.js';

/** How many leading bytes `file-type` reads to find a type (its own `reasonableDetectionSizeInBytes`). */
export const TYPE_DETECTION_BYTES = 4100;

/** Why a file post is refused once it was read (the page shows it again with the catalog's `file.*` text). */
export type UploadProblem = 'chooseFile' | 'oneFile' | 'empty' | 'tooLarge' | 'wrongType' | 'tooManyFields';

/** What a multipart file post held, once read. */
export type UploadReadResult =
  | { outcome: 'cancel' }
  | { outcome: 'file'; name: string; type: string; size: number; sha256: string; content: Buffer }
  | { outcome: 'problem'; problem: UploadProblem };

/** The limits and checks of one file post. */
export interface UploadReadOptions {
  /**
   * Largest file, in bytes (the elicitation's `maxBytes`), read as each chunk arrives (it may grow known once
   * `authorize` found the record); its value when the read starts is busboy's own limit.
   */
  readonly maxBytes: number;
  /** Largest request body, in bytes: the file and the rest of the form (over it: `tooLarge`, read no further). */
  maxRequestBytes: number;
  /** Normalised accepted types; `null`: any type `file-type` recognises. */
  readonly accept: readonly string[] | null;
  /**
   * The page checks, given the `_csrf` field (the form's first): resolves when the post may go on, rejects with the
   * page's exception otherwise (answered at once, the rest of the body read and dropped). Called at most once,
   * before any byte of a file is taken.
   */
  authorize(csrf: string): Promise<void>;
  /** Told of each chunk of the file kept in memory, as it is kept (the upload budget counts them). */
  buffered?(bytes: number): void;
  /** The refusal of a file part that came before any `_csrf` field (a 403). */
  forged(): Error;
  /** The refusal of a body that is not readable multipart (a 400). */
  unreadable(): Error;
}

/** Bounds of the form's other parts: `_csrf` and `action` (and a little room). */
const MULTIPART_LIMITS = { fields: 4, fieldSize: 1024, parts: 6, headerPairs: 20 } as const;

/**
 * Reads a `multipart/form-data` file post as a stream (busboy): the `_csrf` field first (the page checks run on it,
 * `authorize`, before a file's bytes are taken: a file part before it is `forged`), one file, a few small fields;
 * every limit enforced while reading (the file's size, one file, the field count, the whole body). The file's
 * SHA-256 is computed as it arrives; its type is found from its first bytes (`file-type`), never from its name or
 * the browser's claim, and matched against `accept`. `action=cancel` (after the file, as browsers send the button
 * last) wins over any problem of the file.
 */
export function readUpload(request: Readable & { headers: IncomingHttpHeaders }, options: UploadReadOptions): Promise<UploadReadResult> {
  // The request as Node gives it: `complete` once its whole body arrived.
  const incoming = request as Readable & { complete?: boolean };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: request.headers,
      limits: { ...MULTIPART_LIMITS, files: 1, fileSize: options.maxBytes + 1 },
      defParamCharset: 'utf8',
    });
  } catch {
    // No boundary, or not multipart at all.
    return Promise.reject(options.unreadable());
  }
  return new Promise<UploadReadResult>((resolve, reject) => {
    let authorizing: Promise<void> | undefined;
    let failure: unknown;
    let action: string | undefined;
    let problem: UploadProblem | undefined;
    let file: { name: string; size: number; hash: ReturnType<typeof createHash>; chunks: Buffer[]; truncated: boolean } | undefined;
    let reading: Promise<void> = Promise.resolve();
    let received = 0;
    let settled = false;

    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      // Whatever is still coming is read and dropped (Node closes the connection after the answer otherwise).
      request.resume();
      // The page's own exceptions (HttpExceptions), or whatever `authorize` rejected with, passed on as they are.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > options.maxRequestBytes && !settled) {
        settled = true;
        request.unpipe(parser);
        request.resume();
        resolve({ outcome: 'problem', problem: 'tooLarge' });
      }
    };

    parser.on('field', (name, value) => {
      if (name === '_csrf' && authorizing === undefined) {
        authorizing = options.authorize(value);
        // Refused: answered now, while the rest of the body is read and dropped (never kept).
        authorizing.catch((error: unknown) => {
          failure ??= error;
          fail(error);
        });
      } else if (name === 'action') {
        action = value;
      }
    });
    parser.on('file', (name, stream, info) => {
      // A body cut short errors the file stream too (the parser's own error answers it): never an unhandled one.
      stream.on('error', () => undefined);
      if (authorizing === undefined) {
        stream.resume();
        fail(options.forged());
        return;
      }
      // A file input left empty is sent as a part without a file name (and no bytes).
      if (name !== 'file' || info.filename === undefined || info.filename === '') {
        stream.resume();
        return;
      }
      const current = { name: info.filename, size: 0, hash: createHash('sha256'), chunks: [] as Buffer[], truncated: false };
      file = current;
      reading = authorizing.then(
        () =>
          new Promise<void>((done) => {
            stream.on('data', (chunk: Buffer) => {
              current.size += chunk.length;
              if (current.size > options.maxBytes) {
                current.truncated = true;
                return;
              }
              current.hash.update(chunk);
              current.chunks.push(chunk);
              options.buffered?.(chunk.length);
            });
            stream.on('limit', () => (current.truncated = true));
            stream.on('end', done);
            stream.on('error', done);
          }),
        () => {
          // Refused: the bytes are dropped unread.
          stream.resume();
        },
      );
    });
    parser.on('filesLimit', () => (problem ??= 'oneFile'));
    parser.on('fieldsLimit', () => (problem ??= 'tooManyFields'));
    parser.on('partsLimit', () => (problem ??= 'tooManyFields'));
    parser.on('error', () => fail(options.unreadable()));
    parser.on('close', () => {
      if (settled) return;
      void (async () => {
        if (authorizing === undefined) throw options.forged();
        await authorizing;
        await reading;
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- `authorize`'s rejection, as it came
        if (failure !== undefined) throw failure;
        return finish();
      })().then(
        (result) => {
          if (settled) return;
          settled = true;
          request.off('data', onData);
          resolve(result);
        },
        (error: unknown) => fail(error),
      );
    });

    const finish = async (): Promise<UploadReadResult> => {
      if (action === 'cancel') return { outcome: 'cancel' };
      if (problem) return { outcome: 'problem', problem };
      if (!file) return { outcome: 'problem', problem: 'chooseFile' };
      if (file.truncated) return { outcome: 'problem', problem: 'tooLarge' };
      if (file.size === 0) return { outcome: 'problem', problem: 'empty' };
      const content = Buffer.concat(file.chunks, file.size);
      // One copy of the file from here on.
      file.chunks = [];
      const type = await detectType(content, options.accept);
      if (type === undefined || !acceptsType(options.accept, type)) return { outcome: 'problem', problem: 'wrongType' };
      return { outcome: 'file', name: file.name, type, size: file.size, sha256: file.hash.digest('hex'), content };
    };

    request.on('data', onData);
    // A client that hangs up mid-body ends the read (busboy would wait for the rest forever), so the upload's
    // turn on its elicitation and its share of the budget are given back.
    request.on('close', () => {
      if (incoming.complete === false) fail(options.unreadable());
    });
    request.pipe(parser);
  });
}

/**
 * The file's type from its magic bytes (`file-type`, its first `TYPE_DETECTION_BYTES`); when none is found and
 * `accept` lets plain text in, `text/plain` for content that reads as UTF-8 text.
 */
export async function detectType(content: Buffer, accept: readonly string[] | null): Promise<string | undefined> {
  const { fileTypeFromBuffer } = await loadFileType();
  const found = await fileTypeFromBuffer(content.subarray(0, TYPE_DETECTION_BYTES));
  if (found) return found.mime;
  return acceptsPlainText(accept) && isPlainText(content) ? 'text/plain' : undefined;
}
