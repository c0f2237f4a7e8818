import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { PAGE_MESSAGES } from '../messages/default-messages.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { observeRefusal, refusalOf } from './elicitation-route-observer.js';
import { PageSecurity } from './page-security.js';

/**
 * Turns any failure on the status route into JSON with the route's security headers: an HttpException's own
 * body (Nest's shape, `{ statusCode, message, error? }`, from the module's exceptions, which never carry
 * request input); anything unexpected is logged and answered as a plain 500.
 */
@Catch()
export class ElicitationStatusFilter implements ExceptionFilter {
  private readonly logger = new Logger('ElicitationStatus');

  constructor(private readonly security: PageSecurity) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<PageResponse>();
    observeRefusal(host.switchToHttp().getRequest<PageRequest>(), refusalOf(exception));
    let status: number = HttpStatus.INTERNAL_SERVER_ERROR;
    let body: object = { statusCode: status, message: PAGE_MESSAGES.errors.unexpected };
    if (exception instanceof HttpException) {
      status = exception.getStatus();
      const response = exception.getResponse();
      body = typeof response === 'string' ? { statusCode: status, message: response } : response;
    } else {
      this.logger.error('Elicitation status failed', exception instanceof Error ? exception.stack : String(exception));
    }
    this.security.applyBaseHeaders(res);
    res.status(status);
    res.header('Content-Type', 'application/json; charset=utf-8');
    res.send(JSON.stringify(body));
  }
}
