import { Body, ConflictException, HttpStatus, NotImplementedException, Param, Post, Req, Res } from '@nestjs/common';
import { idOf } from '../core/elicitation-id.js';
import { isPageKind } from '../core/elicitation-kinds.js';
import type { ElicitationExtendResult } from '../core/elicitation.types.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { pageError, withPageHeading } from './exceptions/page-text.js';
import type { PageMessages } from '../messages/page-messages.js';
import { PageRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { ElicitationPageAccess, type FormBody } from './page-access.js';
import { PageResponder } from './page-responder.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';

/**
 * "Need more time?" (`POST /:id/<page>/extend`): a pending elicitation's page asks for more time, once
 * (`ElicitationService.extend`: `extendMs`, never past twice its lifetime). The post is checked as every page post
 * is (`ElicitationPageAccess.openPost`: id, the path's spelling, size, origin and CSRF token (the page's token: its
 * cookie's path covers this route), then the record and its kind, the browser user, expiry, still pending). Granted:
 * a 303 back to the page, which shows the new expiry. Refused: the usual error page (409 extended before, or
 * finished; 410 expired; 501 on a store without `extend`). Mounted under the `routePrefix` with the pages, behind the
 * same guards and filter.
 */
@PageRoutes()
export class ElicitationExtendController {
  constructor(
    private readonly records: ElicitationRecords,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
  ) {}

  @Post(':id/:page/extend')
  @InRouteContext()
  async extend(
    @Param('id') id: string,
    @Param('page') page: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    // A person may ask more time on every page of the module's own (`external` has none).
    if (!isPageKind(page)) throw new ElicitationNotFoundException();
    const record = await this.access.openPost(id, page, req, body, 'extend');
    const result = await this.records.extend(idOf(record));
    if (!result.ok) throw this.refusal(result);
    // Back to the page (a path the module builds, never one from the request), which shows the new expiry.
    return this.answers.redirect(res, HttpStatus.SEE_OTHER, this.security.pagePath(record.id, record.kind));
  }

  /** The error page of an extension the service refused. */
  private refusal(result: Exclude<ElicitationExtendResult, { ok: true }>): Error {
    const heading = (m: PageMessages) => m.headings.noMoreTime;
    if (result.reason === 'already-extended')
      return withPageHeading(
        pageError(ConflictException, (m) => m.time.alreadyExtended),
        heading,
      );
    if (result.reason === 'unsupported')
      return withPageHeading(
        pageError(NotImplementedException, (m) => m.time.cannotExtend),
        heading,
      );
    return this.access.notDone(result);
  }
}
