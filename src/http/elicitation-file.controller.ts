import { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import {
  Body,
  Get,
  Logger,
  Param,
  PayloadTooLargeException,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
  BadRequestException,
} from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { idOf } from '../core/elicitation-id.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationCsrfException } from './exceptions/elicitation-csrf.exception.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { pageError } from './exceptions/page-text.js';
import type { PageMessages } from '../messages/page-messages.js';
import { acceptAttribute, describeAccept, uploadSettingsOf, type UploadSettings } from '../uploads/file-accept.js';
import { fileName } from '../uploads/file-name.js';
import { readUpload, type UploadProblem } from '../uploads/multipart-upload.js';
import type { UploadLease } from '../uploads/upload-budget.js';
import { ElicitationUploads } from './elicitation-uploads.js';
import { PageRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { ElicitationPageAccess, type FormBody } from './page-access.js';
import { PageResponder } from './page-responder.js';
import { raw, type NodeRequestPart, type PageRequest, type PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';

/** Longest reference an `uploadSink` may return, in characters. */
const MAX_SINK_REF_LENGTH = 2048;

/** The status of each problem a file post can have (the page is shown again with its text). */
const PROBLEM_STATUS: Record<UploadProblem, number> = {
  chooseFile: 400,
  empty: 400,
  oneFile: 413,
  tooLarge: 413,
  tooManyFields: 413,
  wrongType: 415,
};

/**
 * The file page (`kind: 'file'`): `/:id/file`, a labelled file input (the accepted types and the largest size
 * said), Submit / Cancel. Its post is `multipart/form-data`, read as a stream (`readUpload`): the `_csrf` field
 * first, on which the page checks run (path, size by Content-Length, origin and CSRF token, record and kind,
 * browser user, expiry, pending) before a byte of the file is taken, then the upload's admission (`ElicitationUploads`:
 * one in flight per elicitation, 409; within `limits.uploadBufferBytes`, 503 with `Retry-After`); one file within the
 * elicitation's `maxBytes` (413), of a type found from its magic bytes that `accept` lists (415), not empty (400). The answer, `{ name, type,
 * size, sha256 }` with the content (base64) or the `uploadSink`'s `ref`, is sealed in every store. Cancel (sent
 * url-encoded by the page's button, or as `action=cancel` in a multipart post) declines. Mounted under the
 * `routePrefix` with the pages, behind the same guards and filter.
 */
@PageRoutes()
export class ElicitationFileController {
  private readonly logger = new Logger('ElicitationFilePage');

  constructor(
    private readonly records: ElicitationRecords,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
    private readonly uploads: ElicitationUploads,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
  ) {}

  @Get(':id/file')
  @InRouteContext()
  async filePage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'file', req, res);
    if (!record) return '';
    return this.page(req, res, 200, record);
  }

  @Post(':id/file')
  @InRouteContext()
  async submitFile(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const node = raw<NodeRequestPart>(req);
    const { messages, locale } = this.answers.localeOf(req);
    if (!isMultipart(node.headers['content-type'])) {
      // The Cancel button posts url-encoded (no file sent for nothing); any other such post has no file.
      const record = await this.access.openPost(id, 'file', req, body);
      if (body?.action === 'cancel')
        return this.answers.done(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
      return this.page(req, res, 400, record, messages.file.chooseFile);
    }
    // The checks openPost makes before reading anything: the id and the path (404), then the size (413).
    if (!this.access.isPostablePath(id, 'file', req)) throw new ElicitationNotFoundException();
    const maxRequestBytes = this.options.limits.maxUploadBytes + this.options.limits.maxBodyBytes;
    const length = node.headers['content-length'];
    if (length !== undefined && !(Number(length) <= maxRequestBytes)) {
      throw pageError(PayloadTooLargeException, (m) => m.file.tooLarge(formatSize(locale, this.options.limits.maxUploadBytes)));
    }
    let record: ElicitationRecord | undefined;
    let settings: UploadSettings = { accept: null, maxBytes: this.options.limits.maxUploadBytes };
    let lease: UploadLease | undefined;
    try {
      return await this.receive(req, res, maxRequestBytes, {
        authorize: async (csrf) => {
          record = await this.access.openUpload(id, req, csrf);
          settings = uploadSettingsOf(record.metadata);
          // One upload in flight per elicitation, within the budget: what it may keep, its file's largest size or
          // less when the request says it is smaller (409 or 503 before a byte of the file is kept).
          const declared = length === undefined ? Infinity : Number(length);
          lease = this.uploads.admit(record.id, Math.min(settings.maxBytes, declared), res);
        },
        record: () => record,
        settings: () => settings,
        buffered: (bytes) => lease?.hold(bytes),
      });
    } finally {
      lease?.release();
    }
  }

  /** Reads a multipart file post (`readUpload`) and answers it: the file stored or handed to the sink, or the page again. */
  private async receive(
    req: PageRequest,
    res: PageResponse,
    maxRequestBytes: number,
    upload: {
      authorize: (csrf: string) => Promise<void>;
      record: () => ElicitationRecord | undefined;
      settings: () => UploadSettings;
      buffered: (bytes: number) => void;
    },
  ): Promise<string> {
    const { messages, locale } = this.answers.localeOf(req);
    const stream = (req as { raw?: unknown }).raw ?? req;
    const read = await readUpload(stream as Readable & { headers: IncomingHttpHeaders }, {
      // Until the record is known, the module's ceiling (busboy's limit); then the elicitation's own.
      get maxBytes() {
        return upload.settings().maxBytes;
      },
      maxRequestBytes,
      get accept() {
        return upload.settings().accept;
      },
      authorize: upload.authorize,
      buffered: upload.buffered,
      forged: () => new ElicitationCsrfException(),
      unreadable: () => pageError(BadRequestException, (m) => m.errors.unreadable),
    });
    // Authorised when a result came back (every path without `_csrf` rejects), unless the body outgrew the limit first.
    const record = upload.record();
    const settings = upload.settings();
    if (!record) {
      if (read.outcome === 'problem' && read.problem === 'tooLarge') {
        throw pageError(PayloadTooLargeException, (m) => m.file.tooLarge(formatSize(locale, this.options.limits.maxUploadBytes)));
      }
      throw new ElicitationCsrfException();
    }
    if (read.outcome === 'cancel')
      return this.answers.done(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
    if (read.outcome === 'file' && read.size > settings.maxBytes) return this.problem(req, res, record, settings, 'tooLarge');
    if (read.outcome === 'problem') return this.problem(req, res, record, settings, read.problem);
    const name = fileName(read.name);
    const answer: Record<string, unknown> = { name, type: read.type, size: read.size, sha256: read.sha256 };
    if (this.options.uploadSink) {
      answer.ref = await this.toSink(record, { name, type: read.type, size: read.size, content: read.content });
    } else {
      answer.content = read.content.toString('base64');
    }
    return this.answers.done(req, res, record, await this.records.completeFile(idOf(record), answer), messages.done.fileReceived);
  }

  /** Hands the file to `uploadSink` (a stream of its bytes); its reference, or a 503 page when it failed (nothing stored). */
  private async toSink(record: ElicitationRecord, file: { name: string; type: string; size: number; content: Buffer }): Promise<string> {
    let ref: unknown;
    try {
      ref = await this.options.uploadSink!({
        elicitationId: record.id,
        userId: record.userId,
        name: file.name,
        type: file.type,
        size: file.size,
        stream: Readable.from([file.content]),
      });
    } catch (error) {
      this.logger.warn(`uploadSink failed for elicitation ${record.id}: ${error instanceof Error ? error.message : String(error)}`);
      throw pageError(ServiceUnavailableException, (m) => m.errors.unavailable);
    }
    if (typeof ref !== 'string' || ref === '' || ref.length > MAX_SINK_REF_LENGTH) {
      this.logger.warn(
        `uploadSink resolved no reference (a string of 1 to ${MAX_SINK_REF_LENGTH} characters) for elicitation ${record.id}`,
      );
      throw pageError(ServiceUnavailableException, (m) => m.errors.unavailable);
    }
    return ref;
  }

  /** The page again with a problem's text and status (nothing was stored). */
  private problem(
    req: PageRequest,
    res: PageResponse,
    record: ElicitationRecord,
    settings: UploadSettings,
    problem: UploadProblem,
  ): string {
    const { messages, locale } = this.answers.localeOf(req);
    return this.page(req, res, PROBLEM_STATUS[problem], record, problemText(problem, messages, settings, locale));
  }

  private page(req: PageRequest, res: PageResponse, status: number, record: ElicitationRecord, error: string | null = null): string {
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res, req);
    const { messages, locale } = this.answers.localeOf(req);
    const settings = uploadSettingsOf(record.metadata);
    return this.answers.page(
      req,
      res,
      status,
      'file',
      {
        heading: messages.headings.file,
        message: record.message,
        label: messages.file.label,
        accept: acceptAttribute(settings.accept),
        accepted: settings.accept ? messages.file.accepted(describeAccept(settings.accept)) : null,
        maxSize: messages.file.maxSize(formatSize(locale, settings.maxBytes)),
        error,
        csrf,
        labels: messages.labels,
      },
      { record },
    );
  }
}

/** True for a `multipart/form-data` content type (any parameters). */
function isMultipart(contentType: string | undefined): boolean {
  return typeof contentType === 'string' && /^multipart\/form-data\s*(;|$)/i.test(contentType.trim());
}

/** A problem's text in the page's catalog. */
function problemText(problem: UploadProblem, messages: PageMessages, settings: UploadSettings, locale: string): string {
  switch (problem) {
    case 'chooseFile':
      return messages.file.chooseFile;
    case 'empty':
      return messages.file.empty;
    case 'oneFile':
      return messages.file.oneFile;
    case 'tooLarge':
      return messages.file.tooLarge(formatSize(locale, settings.maxBytes));
    case 'tooManyFields':
      return messages.errors.tooMuchData;
    case 'wrongType':
      return messages.file.wrongType(settings.accept ? describeAccept(settings.accept) : '—');
  }
}

/** A size in the page's locale: bytes, kilobytes or megabytes (of 1024), at most one decimal. */
export function formatSize(locale: string, bytes: number): string {
  const [value, unit] =
    bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'megabyte'] : bytes >= 1024 ? [bytes / 1024, 'kilobyte'] : [bytes, 'byte'];
  return new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(value);
}
