import { type ArgumentsHost, Catch, type ExceptionFilter, Injectable } from '@nestjs/common';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ElicitationStatusFilter } from './elicitation-status.filter.js';
import { prefersJson } from './inbox-view.js';
import { raw, type NodeRequestPart, type PageRequest, type PageResponse } from './page-http.js';

/**
 * Answers a failure of the inbox route as the request asked for the inbox: as JSON (`ElicitationStatusFilter`'s
 * `{ statusCode, message }`) when its `Accept` prefers JSON, else as an error page (`ElicitationPageFilter`); each with
 * the headers of its kind and `Vary: Accept`.
 */
@Catch()
@Injectable()
export class ElicitationInboxFilter implements ExceptionFilter {
  constructor(
    private readonly pages: ElicitationPageFilter,
    private readonly json: ElicitationStatusFilter,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<PageRequest | undefined>();
    host.switchToHttp().getResponse<PageResponse>().header('Vary', 'Accept');
    const asJson = req !== undefined && prefersJson(raw<NodeRequestPart>(req).headers.accept);
    (asJson ? this.json : this.pages).catch(exception, host);
  }
}
