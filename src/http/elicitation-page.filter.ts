import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { ElicitationCsrfException } from './exceptions/elicitation-csrf.exception.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationFinishedException } from './exceptions/elicitation-finished.exception.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import { ElicitationStoreUnavailableError, STORE_RETRY_AFTER_S } from '../errors/elicitation-store-unavailable.error.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { observeRefusal, refusalOf } from './elicitation-route-observer.js';
import { pageHeadingOf, pageTextOf } from './exceptions/page-text.js';
import { PageLocales } from './page-locales.js';
import { KeyIdWarnings } from '../security/key-ids.js';
import { PageSecurity } from './page-security.js';
import { TemplateRenderer } from './template-renderer.js';

/** The readable text of an HttpException: its message when that is a string. */
function messageOf(exception: HttpException): string | undefined {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message: unknown = 'message' in body ? body.message : undefined;
  return typeof message === 'string' ? message : undefined;
}

/**
 * Turns any failure on a page route into a readable HTML page with the right status. Messages come
 * from the module's own exceptions, which never carry user-entered values; anything unexpected is
 * logged and shown as a plain 500.
 */
@Catch()
export class ElicitationPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('ElicitationPages');
  /** A key id this instance lacks is warned about at most once per interval. */
  private readonly keyIdWarnings = new KeyIdWarnings();

  constructor(
    private readonly renderer: TemplateRenderer,
    private readonly security: PageSecurity,
    private readonly locales: PageLocales,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<PageResponse>();
    const req = host.switchToHttp().getRequest<PageRequest | undefined>();
    if (req) observeRefusal(req, refusalOf(exception));
    // The page speaks the request's language (a request the framework could not read: the default locale's).
    const locale = this.locales.of(req);
    const { messages } = locale;
    let status: number = HttpStatus.INTERNAL_SERVER_ERROR;
    let text = messages.errors.unexpected;
    if (exception instanceof ElicitationInputError && exception.field === 'data') {
      // The answer exceeds limits.maxResultBytes (smaller than the body cap): refused, nothing stored.
      status = HttpStatus.PAYLOAD_TOO_LARGE;
      text = messages.errors.answerTooLarge;
    } else if (exception instanceof ElicitationStoreUnavailableError) {
      status = HttpStatus.SERVICE_UNAVAILABLE;
      text = messages.errors.unavailable;
      res.header('Retry-After', String(STORE_RETRY_AFTER_S));
      this.logger.warn(exception.message);
    } else if (exception instanceof ElicitationKeyError) {
      // Another instance sealed the record, or issued the form's CSRF token, under a key this one lacks (a CSRF
      // token's key id only when a live instance announced it: a made-up one is a forged post, `CsrfTokens`): the
      // operator's to fix (the message names key ids and encryptionKey); the browser gets a readable 503.
      status = HttpStatus.SERVICE_UNAVAILABLE;
      text = messages.errors.keyMismatch;
      // Each key id is a warning at most once per interval: said again while unfixed, never a flood.
      if (this.keyIdWarnings.take(exception.keyId)) this.logger.warn(exception.message);
      else this.logger.debug(exception.message);
    } else if (exception instanceof HttpException) {
      status = exception.getStatus();
      text = pageTextOf(exception)?.(messages) ?? messageOf(exception) ?? text;
    } else {
      this.logger.error('Elicitation page failed', exception instanceof Error ? exception.stack : String(exception));
    }
    const nonce = this.security.applyHeaders(res);
    res.status(status);
    const heading =
      pageHeadingOf(exception)?.(messages) ??
      (exception instanceof ElicitationFinishedException
        ? messages.headings.finished(exception.recordedStatus)
        : exception instanceof ElicitationCsrfException
          ? messages.headings.forgedPost
          : (messages.headings.byStatus[status] ?? messages.headings.otherError));
    const context = { heading, text, statusCode: status, statusLine: messages.errors.statusLine(status) };
    res.send(this.renderer.render('error', context, nonce, { locale }));
  }
}
