import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { PAGE_KINDS } from '../core/elicitation-kinds.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { displayText, MAX_BUTTON_LABEL_LENGTH, MAX_TITLE_LENGTH } from '../security/display-text.js';
import { builtInTemplatesDir, PageAssets } from './page-assets.js';
import { inboxPath, passkeysPath } from '../lifecycle/page-urls.js';

export { builtInTemplatesDir } from './page-assets.js';
import type { ExpiryView, PageContexts, PageFrame } from './page-contexts.js';

/**
 * The templates the module renders (the layout, a page per `PAGE_KINDS`, done, error and the inbox); a `templatesDir` may
 * replace any of them.
 */
export const TEMPLATE_NAMES = ['layout', ...PAGE_KINDS, 'done', 'error', 'inbox', 'passkeys'] as const;
export type TemplateName = Exclude<(typeof TEMPLATE_NAMES)[number], 'layout'>;

/** Seconds between reloads of the inbox in a browser without JavaScript (`<noscript><meta http-equiv="refresh">`). */
export const INBOX_REFRESH_S = 30;

/**
 * The texts of a page context that may come from the elicitation, made safe to show (`displayText`): the
 * heading (the confirm page's `title`, also the document title) and the button labels on one capped line, the
 * message and the warning as blocks. The hosted form's fields come prepared by `fieldViews`.
 */
function forDisplay<N extends TemplateName>(context: PageContexts[N]): PageContexts[N] {
  const shown: Record<string, unknown> = { ...context, heading: displayText(context.heading, 'line', MAX_TITLE_LENGTH) };
  if ('message' in context) shown.message = displayText(context.message);
  if ('warning' in context) {
    shown.warning = context.warning === null ? null : displayText(context.warning);
    shown.confirmLabel = displayText(context.confirmLabel, 'line', MAX_BUTTON_LABEL_LENGTH);
    shown.cancelLabel = displayText(context.cancelLabel, 'line', MAX_BUTTON_LABEL_LENGTH);
  }
  return shown as PageContexts[N];
}

/** Pages kept rendered (`TemplateRenderer`): enough for the messages a busy app's tools ask at once. */
const RENDERED_PAGES = 256;
/**
 * Where what belongs to one render or one elicitation goes in a kept page: the CSRF token, the style nonce, the
 * expiry instant the countdown runs to, the "Need more time?" form's action (it names the elicitation) and token.
 * No template text or escaped value holds a NUL.
 */
const MARKS = {
  csrf: '\u0000csrf\u0000',
  nonce: '\u0000nonce\u0000',
  expiresAt: '\u0000expiresAt\u0000',
  extendAction: '\u0000extendAction\u0000',
  extendCsrf: '\u0000extendCsrf\u0000',
} as const;
type Mark = keyof typeof MARKS;
// eslint-disable-next-line no-control-regex -- the marks are NULs, which no page text holds
const MARK = /\u0000(csrf|nonce|expiresAt|extendAction|extendCsrf)\u0000/;

/** A page rendered once: its text cut at the marks, and which value goes in each cut. */
interface RenderedPage {
  pieces: string[];
  slots: Mark[];
}

/**
 * Renders the pages with the module's own Handlebars instance (never the host's view engine), so any
 * Nest app works. Each template is compiled once, at start-up, in strict mode; only escaped `{{ }}` is
 * used, so user text can never become markup, and every text that came from the elicitation goes through
 * `displayText` first, so it cannot make the page read differently either (also in a custom template).
 *
 * The last `RENDERED_PAGES` pages are kept rendered, by everything else they show (their template, every text of
 * their context, their expiry line's texts): a page asked for again, or the same message on another elicitation,
 * costs a few string joins instead of a render. A kept page holds nothing of one render or one elicitation: the
 * CSRF token, the style nonce, the expiry instant and the "Need more time?" form's action (the elicitation's id)
 * are marks, filled in at each render (`MARKS`), so two people asked the same question in the same minute never
 * see each other's elicitation. Only with the built-in templates, which print those values as they are (tested):
 * a `templatesDir` that replaces any template could do anything with them, so its pages are rendered every time.
 */
@Injectable()
export class TemplateRenderer {
  private readonly handlebars = Handlebars.create();
  private readonly compiled = new Map<string, Handlebars.TemplateDelegate>();
  private readonly theme: { title: string; primaryColor: string; onPrimary: string; logoUrl: string | null };
  /** The inbox's path, for the bar's link on every page; null without `resolvePageUser` (no inbox then). */
  private readonly inbox: string | null;
  /** The passkey page's path, for the bar's link; null without `resolvePageUser` or the `passkeys` option. */
  private readonly passkeys: string | null;
  private readonly rendered = new Map<string, RenderedPage>();
  /** Whether pages are kept rendered: only when every template is a built-in one. */
  private readonly keepsPages: boolean;

  constructor(
    @InjectPageOptions() options: ElicitationPageOptions,
    private readonly assets: PageAssets = new PageAssets(options),
  ) {
    this.theme = {
      title: options.title,
      primaryColor: options.primaryColor,
      onPrimary: options.primaryTextColor,
      logoUrl: options.logoUrl ?? null,
    };
    this.inbox = options.resolvePageUser ? inboxPath(options) : null;
    this.passkeys = options.resolvePageUser && options.passkeysInBar ? passkeysPath(options) : null;
    const builtIn = builtInTemplatesDir();
    let customized = false;
    for (const name of TEMPLATE_NAMES) {
      const custom = options.templatesDir && join(options.templatesDir, `${name}.hbs`);
      const file = custom && existsSync(custom) ? custom : join(builtIn, `${name}.hbs`);
      customized ||= file === custom;
      let source: string;
      try {
        source = readFileSync(file, 'utf8');
      } catch {
        throw new ElicitationConfigError('templatesDir', `points at an unreadable template ${file}`);
      }
      // Handlebars compiles lazily, at the first render: a broken template fails start-up here instead, by name.
      try {
        this.handlebars.precompile(source, { strict: true });
      } catch (error) {
        const problem = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new ElicitationConfigError('templatesDir', `holds a template ${name}.hbs (${file}) that does not compile: ${problem}`);
      }
      const template = this.handlebars.compile(source, { strict: true, noEscape: false });
      if (name === 'layout') this.handlebars.registerPartial('layout', template);
      else this.compiled.set(name, template);
    }
    this.keepsPages = !customized;
  }

  /**
   * Renders one page in `frame`'s language (`lang`, `dir`, the catalog's labels) with the nonce its inline style and
   * script must carry (see `PageSecurity.applyHeaders`), and, on a page of a pending request, its expiry line.
   */
  render<N extends TemplateName>(name: N, context: PageContexts[N], nonce: string, frame: PageFrame): string {
    const key = this.keepsPages ? keyOf(name, context, frame) : undefined;
    if (key === undefined) return this.renderNow(name, context, nonce, frame);
    let page = this.rendered.get(key);
    if (!page) {
      page = cut(this.renderNow(name, { ...context, ...('csrf' in context && { csrf: MARKS.csrf }) }, MARKS.nonce, marked(frame)));
      if (this.rendered.size >= RENDERED_PAGES) this.rendered.delete(this.rendered.keys().next().value!);
      this.rendered.set(key, page);
    }
    const { expiry } = frame;
    return fill(page, {
      csrf: 'csrf' in context ? context.csrf : '',
      nonce,
      expiresAt: expiry?.iso ?? '',
      extendAction: expiry?.extend?.action ?? '',
      extendCsrf: expiry?.extend?.csrf ?? '',
    });
  }

  private renderNow<N extends TemplateName>(name: N, context: PageContexts[N], nonce: string, frame: PageFrame): string {
    const { locale, expiry = null } = frame;
    return this.compiled.get(name)!({
      ...forDisplay(context),
      nonce,
      theme: this.theme,
      assets: this.assets.urls,
      lang: locale.locale,
      dir: locale.dir,
      expiry,
      // The bar's link to the inbox, on every page (the inbox itself marks it as the current page).
      inboxLink: this.inbox && { href: this.inbox, label: locale.messages.labels.inbox, current: name === 'inbox' },
      passkeysLink: this.passkeys && { href: this.passkeys, label: locale.messages.passkeys.link, current: name === 'passkeys' },
      refreshSeconds: name === 'inbox' ? INBOX_REFRESH_S : null,
    });
  }
}

/** `frame` with marks where its per-elicitation values go (the expiry instant, the extend form's action and token). */
function marked(frame: PageFrame): PageFrame {
  const { expiry } = frame;
  if (!expiry) return frame;
  const extend = expiry.extend && { ...expiry.extend, action: MARKS.extendAction, csrf: MARKS.extendCsrf };
  return { ...frame, expiry: { ...expiry, iso: MARKS.expiresAt, extend } };
}

/** A page rendered with marks, cut at them. */
function cut(html: string): RenderedPage {
  const [first, ...rest] = html.split(MARK);
  const page: RenderedPage = { pieces: [first], slots: [] };
  for (let i = 0; i < rest.length; i += 2) {
    page.slots.push(rest[i] as Mark);
    page.pieces.push(rest[i + 1]);
  }
  return page;
}

/**
 * What a page shows besides its marks, as one string: the template, the locale, every other value of the expiry
 * line, and each value of the context (the page labels are the module's own, the same object every time);
 * `undefined` for a context holding anything else (the hosted form's fields), whose pages are rendered every time.
 * Built by hand, each part prefixed with its length, so that two different pages can never share a key: it runs on
 * every render, where spreading the expiry line and a `JSON.stringify` of the parts cost more than the kept page
 * saves on a short one (the page rows of bench/http.bench.ts).
 */
function keyOf(name: string, context: object, frame: PageFrame): string | undefined {
  let key = part(part('', name), frame.locale.locale);
  const { expiry } = frame;
  if (expiry) {
    // Every field of the expiry line but the marked ones (a field added later is in the key without a change here).
    for (const field in expiry) {
      const value = expiry[field as keyof ExpiryView];
      if (field === 'iso') continue;
      if (field === 'extend' && value !== null && typeof value === 'object') {
        for (const inner in value) {
          const next = inner === 'action' || inner === 'csrf' ? key : valuePart(key, inner, value[inner as keyof typeof value]);
          if (next === undefined) return undefined;
          key = next;
        }
        continue;
      }
      const next = valuePart(key, field, value);
      if (next === undefined) return undefined;
      key = next;
    }
  }
  key += '|';
  const labels = frame.locale.messages.labels;
  for (const field in context) {
    const value = (context as Record<string, unknown>)[field];
    if (field === 'csrf' || (field === 'labels' && value === labels)) continue;
    const next = valuePart(key, field, value);
    if (next === undefined) return undefined;
    key = next;
  }
  return key;
}

/** `key` with one string appended, prefixed with its length. */
function part(key: string, text: string): string {
  return `${key}${text.length}:${text}`;
}

/** `key` with a field and its value appended (its type, then the value), or `undefined` for a value that is an object. */
function valuePart(key: string, field: string, value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') return undefined;
  const type = value === null ? 'z' : (typeof value)[0];
  return part(part(key, field) + type, String(value));
}

/** A kept page with this render's values, escaped as the templates' `{{ }}` escapes them. */
function fill(page: RenderedPage, values: Record<Mark, string>): string {
  let html = page.pieces[0];
  for (let i = 0; i < page.slots.length; i++) html += Handlebars.escapeExpression(values[page.slots[i]]) + page.pieces[i + 1];
  return html;
}
