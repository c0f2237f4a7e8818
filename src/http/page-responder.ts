import { Injectable } from '@nestjs/common';
import type { ElicitationRecord, TransitionResult } from '../core/elicitation.types.js';
import type { PageLocale } from '../messages/locales.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { ElicitationPageAccess } from './page-access.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { PageLocales } from './page-locales.js';
import { PageSecurity } from './page-security.js';
import { PageTimes, timeLeft } from './page-times.js';
import { TemplateRenderer, type TemplateName } from './template-renderer.js';
import type { ExpiryView, PageContexts } from './page-contexts.js';

/**
 * What a page may add to its answer: the pending record (its expiry line), another origin its form leads to, and
 * whether its script reads from this origin (the inbox's).
 */
export interface PageExtras {
  record?: ElicitationRecord;
  /** See `PageSecurity.applyHeaders`. */
  formTarget?: string;
  /** See `PageSecurity.applyHeaders`. */
  connect?: boolean;
}

/** The texts of an expiry line that depend on the instant and the locale only. */
type ExpiryLine = Pick<ExpiryView, 'before' | 'relative' | 'after' | 'absolute' | 'iso'>;

/** Expiry lines kept formatted (a few bytes each): the pages of this many requests, each in one language, at once. */
const KEPT_EXPIRY_LINES = 1_000;

/**
 * How the page routes answer: a rendered page in the request's language with its security headers (and, for a
 * pending request, when it expires), the done page of a transition, or a redirect.
 */
@Injectable()
export class PageResponder {
  /** How times read on a page. */
  readonly times = new PageTimes();
  /** The expiry lines formatted last (`expiryLine`), oldest first. */
  private readonly lines = new Map<string, ExpiryLine>();

  constructor(
    private readonly access: ElicitationPageAccess,
    private readonly renderer: TemplateRenderer,
    private readonly security: PageSecurity,
    private readonly records: ElicitationRecords,
    private readonly locales: PageLocales,
  ) {}

  /** The request's language: its catalog, locale and direction. */
  localeOf(req: PageRequest): PageLocale {
    return this.locales.of(req);
  }

  /** A page: its headers, status and rendered template, in the request's language. */
  page<N extends TemplateName>(
    req: PageRequest,
    res: PageResponse,
    status: number,
    name: N,
    context: PageContexts[N],
    extras: PageExtras = {},
  ): string {
    const locale = this.locales.of(req);
    const nonce = this.security.applyHeaders(res, extras.formTarget, extras.connect);
    res.status(status);
    const csrf = 'csrf' in context && typeof context.csrf === 'string' ? context.csrf : undefined;
    const expiry = extras.record?.status === 'pending' ? this.expiry(extras.record, locale, csrf) : null;
    return this.renderer.render(name, context, nonce, { locale, expiry });
  }

  /** The done page of a transition that happened; otherwise its 404/409/410 page. */
  done(req: PageRequest, res: PageResponse, record: ElicitationRecord, result: TransitionResult, text: string): string {
    if (!result.ok) throw this.access.notDone(result);
    const { messages } = this.locales.of(req);
    return this.page(req, res, 200, 'done', { heading: messages.headings.done, text, message: record.message, labels: messages.labels });
  }

  /** A redirect to `location` (a URL the module built, never one from the request), with the headers of an answer without a page. */
  redirect(res: PageResponse, status: number, location: string): string {
    this.security.applyBaseHeaders(res);
    res.status(status);
    res.header('Location', location);
    return '';
  }

  /**
   * The expiry line: relative ("in 9 minutes", `Intl.RelativeTimeFormat`) and absolute (date and time in UTC, the
   * time zone the hosted form documents: the same whatever the browser's), in the page's locale.
   */
  private expiry(record: ElicitationRecord, locale: PageLocale, csrf: string | undefined): ExpiryView {
    return {
      ...this.expiryLine(record.expiresAt, locale),
      soon: locale.messages.time.expiresSoon,
      expired: locale.messages.time.expiredNow,
      extend: this.extendForm(record, locale, csrf),
      extended: record.extendedAt === undefined ? null : locale.messages.time.extended,
    };
  }

  /**
   * The texts of the expiry line of a request expiring at `expiresAt`, as they read now: kept by what they show
   * (the locale, the instant, the relative time in its unit), so that the `Intl` formatting runs once per minute of
   * a page, not once per render.
   */
  private expiryLine(expiresAt: number, locale: PageLocale): ExpiryLine {
    const left = timeLeft(expiresAt - Date.now());
    const key = `${locale.locale} ${expiresAt} ${left.amount} ${left.unit}`;
    let line = this.lines.get(key);
    if (!line) {
      const absolute = this.times.absolute(expiresAt, locale.locale);
      const [before, after = ''] = locale.messages.time.expiresAt('\u0000', absolute).split('\u0000');
      line = { before, relative: this.times.relative(left, locale.locale), after, absolute, iso: new Date(expiresAt).toISOString() };
      if (this.lines.size >= KEPT_EXPIRY_LINES) this.lines.delete(this.lines.keys().next().value!);
      this.lines.set(key, line);
    }
    return line;
  }

  /**
   * "Need more time?" on a page with a form (its CSRF token goes with the post), while the request can still have
   * more: the post goes to `<page>/extend` (`ElicitationExtendController`), the hint says how many minutes it adds.
   */
  private extendForm(record: ElicitationRecord, locale: PageLocale, csrf: string | undefined): ExpiryView['extend'] {
    const extended = csrf === undefined ? undefined : this.records.extensionOf(record);
    if (extended === undefined || csrf === undefined) return null;
    const action = this.security.pagePath(record.id, `${record.kind}/extend`);
    return { action, hint: locale.messages.time.extendHint(Math.max(1, Math.round((extended - record.expiresAt) / 60_000))), csrf };
  }
}
