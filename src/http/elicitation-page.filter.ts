import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import { PageSecurity } from './page-security.js';
import { TemplateRenderer } from './template-renderer.js';

const HEADINGS: Record<number, string> = {
  400: 'Something is wrong with this request',
  401: 'Please sign in',
  403: 'Not your request',
  404: 'Request not found',
  409: 'Already answered',
  410: 'This request has expired',
  413: 'Too much data',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/**
 * Turns any failure on a page route into a readable HTML page with the right status. Messages come
 * from the module's own exceptions, which never carry user-entered values; anything unexpected is
 * logged and shown as a plain 500.
 */
@Catch()
export class ElicitationPageFilter implements ExceptionFilter {
  private readonly logger = new Logger('ElicitationPages');

  constructor(
    private readonly renderer: TemplateRenderer,
    private readonly security: PageSecurity,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse();
    let status = HttpStatus.INTERNAL_SERVER_ERROR;
    let text = 'Something went wrong on our side. Please try again later.';
    if (exception instanceof ElicitationInputError && exception.field === 'data') {
      // The answer exceeds limits.maxResultBytes (smaller than the body cap): refused, nothing stored.
      status = HttpStatus.PAYLOAD_TOO_LARGE;
      text = 'The answer is too large to store. Nothing was saved.';
    } else if (exception instanceof ElicitationStoreUnavailableError) {
      status = HttpStatus.SERVICE_UNAVAILABLE;
      text = 'This service is temporarily unavailable. Nothing was saved. Please try again in a moment.';
      this.logger.warn(exception.message);
    } else if (exception instanceof HttpException) {
      status = exception.getStatus();
      const body = exception.getResponse();
      const message = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      if (typeof message === 'string') text = message;
    } else {
      this.logger.error('Elicitation page failed', exception instanceof Error ? exception.stack : String(exception));
    }
    const nonce = this.security.applyHeaders(res);
    res.status(status);
    res.send(this.renderer.render('error', { heading: HEADINGS[status] ?? 'Error', text, statusCode: status, nonce }));
  }
}
