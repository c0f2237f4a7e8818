import { Injectable } from '@nestjs/common';
import type { ElicitationRecord, TransitionResult } from '../elicitation.types.js';
import { PAGE_MESSAGES } from '../messages/page-messages.js';
import { ElicitationPageAccess } from './page-access.js';
import type { PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';
import { TemplateRenderer, type PageContexts, type TemplateName } from './template-renderer.js';

/** How the page routes answer: a rendered page with its security headers, or the done page of a transition. */
@Injectable()
export class PageAnswers {
  constructor(
    private readonly access: ElicitationPageAccess,
    private readonly renderer: TemplateRenderer,
    private readonly security: PageSecurity,
  ) {}

  /** A page: its headers (`formTarget`: see `PageSecurity.applyHeaders`), status and rendered template. */
  page<N extends TemplateName>(res: PageResponse, status: number, name: N, context: PageContexts[N], formTarget?: string): string {
    const nonce = this.security.applyHeaders(res, formTarget);
    res.status(status);
    return this.renderer.render(name, context, nonce);
  }

  /** The done page of a transition that happened; otherwise its 404/409/410 page. */
  done(res: PageResponse, record: ElicitationRecord, result: TransitionResult, text: string): string {
    if (!result.ok) throw this.access.notDone(result);
    return this.page(res, 200, 'done', {
      heading: PAGE_MESSAGES.headings.done,
      text,
      message: record.message,
      labels: PAGE_MESSAGES.labels,
    });
  }

  /** A redirect to `location` (a URL the module built, never one from the request), with the headers of an answer without a page. */
  redirect(res: PageResponse, status: number, location: string): string {
    this.security.applyBaseHeaders(res);
    res.status(status);
    res.header('Location', location);
    return '';
  }
}
