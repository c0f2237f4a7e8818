import { Get, Query, Req, Res } from '@nestjs/common';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { inboxPath } from '../lifecycle/page-urls.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { InboxRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { inboxItems, inboxJson, prefersJson } from './inbox-view.js';
import { ElicitationPageAccess } from './page-access.js';
import { raw, type NodeRequestPart, type PageRequest, type PageResponse } from './page-http.js';
import { PageResponder } from './page-responder.js';
import { PageSecurity } from './page-security.js';

/** The longest `after` the route passes on; anything else in the query starts the list over (a store's cursor is far shorter). */
const MAX_CURSOR_LENGTH = 512;

/**
 * The inbox, `GET /<routePrefix>/inbox`: the signed-in user's open questions, newest first, a page of 20 at a time
 * (`?after=`, the `next` of the page before), as a page or, when the request's `Accept` prefers it, as JSON
 * (`InboxJson`). The browser user comes from `resolvePageUser`, as on the pages (`ElicitationPageAccess.inboxUser`):
 * none is 401 (or a 303 to `loginUrl` for the page), and the list is that user's only. The page keeps itself current
 * (`inbox.js` polls the JSON: `connect-src 'self'` joins its CSP); without JavaScript it reloads itself every 30 s.
 * Behind the routes' one guard (observer, draining, throttle), every failure answered as asked
 * (`ElicitationInboxFilter`). Mounted under the `routePrefix` by `createElicitationControllers`, before the routes
 * whose first segment is an id.
 */
@InboxRoutes()
export class ElicitationInboxController {
  /** The inbox's path as the browser sees it. */
  private readonly home: string;

  constructor(
    private readonly records: ElicitationRecords,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
    @InjectPageOptions() options: ElicitationPageOptions,
  ) {
    this.home = inboxPath(options);
  }

  @Get('inbox')
  @InRouteContext()
  async inbox(@Query('after') after: unknown, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const json = prefersJson(raw<NodeRequestPart>(req).headers.accept);
    res.header('Vary', 'Accept');
    const user = await this.access.inboxUser(req, res, json);
    if (user === undefined) return '';
    const cursor = typeof after === 'string' && after !== '' && after.length <= MAX_CURSOR_LENGTH ? after : undefined;
    const page = await this.records.listOpen(user, cursor === undefined ? {} : { after: cursor });
    if (json) {
      this.security.applyBaseHeaders(res);
      res.header('Content-Type', 'application/json; charset=utf-8');
      return JSON.stringify(inboxJson(page));
    }
    const locale = this.answers.localeOf(req);
    const { inbox } = locale.messages;
    const context = {
      heading: inbox.heading,
      texts: inbox,
      questions: inboxItems(page, this.answers.times, locale.locale),
      source: this.at(cursor),
      home: this.home,
      older: page.next === undefined ? null : this.at(page.next),
      newest: cursor === undefined ? null : this.home,
    };
    return this.answers.page(req, res, 200, 'inbox', context, { connect: true });
  }

  /** The inbox's path for the page that starts after `cursor` (the first page without one). */
  private at(cursor: string | undefined): string {
    return cursor === undefined ? this.home : `${this.home}?after=${encodeURIComponent(cursor)}`;
  }
}
