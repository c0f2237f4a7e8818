import type { ElicitationContact, ElicitationNotice, ElicitationNotifier } from '../core/notice.js';
import { noticeTexts, shortText } from './notice-texts.js';

/** The part of a nodemailer transport the e-mail notifier uses (`nodemailer.createTransport(...)` is one). */
export interface NoticeMailTransport {
  sendMail(mail: {
    from: string;
    to: string;
    subject: string;
    text: string;
    html: string;
    headers?: Record<string, string>;
  }): Promise<unknown>;
}

/** Options of `emailNotifier`. */
export interface EmailNotifierOptions {
  /** The app's SMTP transport (`nodemailer.createTransport({ host, port, auth })`) or anything with its `sendMail`. */
  transport: NoticeMailTransport;
  /** The sender, e.g. `"Approvals <approvals@example.com>"`. */
  from: string;
  /** The notifier's name. @default 'email' */
  name?: string;
}

/**
 * Writes each notice as a short e-mail to the contact's `email` (skipped for a contact without one): plain text and
 * HTML, in the contact's `locale` (en, de, ar), with the message, what asked, the expiry and the link. The
 * notice's id goes in an `X-Elicitation-Notice` header (de-duplicate on it).
 */
export function emailNotifier(options: EmailNotifierOptions): ElicitationNotifier {
  if (typeof options?.transport?.sendMail !== 'function') {
    throw new TypeError(
      'emailNotifier({ transport }) must be a nodemailer transport (an object with sendMail), got ' + typeof options?.transport,
    );
  }
  if (typeof options.from !== 'string' || !options.from.includes('@')) {
    throw new TypeError(
      `emailNotifier({ from }) must be an address such as "Approvals <approvals@example.com>", got ${JSON.stringify(options.from)}`,
    );
  }
  const { transport, from } = options;
  return {
    name: options.name ?? 'email',
    async send(notice, contact) {
      if (typeof contact.email !== 'string' || !contact.email.includes('@')) return 'skipped';
      const mail = noticeMail(notice, contact);
      await transport.sendMail({ from, to: contact.email, ...mail, headers: { 'X-Elicitation-Notice': notice.id } });
    },
  };
}

/** The subject, text and HTML of a notice's e-mail. */
export function noticeMail(notice: ElicitationNotice, contact: ElicitationContact): { subject: string; text: string; html: string } {
  const { locale, texts } = noticeTexts(contact.locale);
  const expires = formatTime(notice.expiresAt, locale, contact.timeZone);
  const tool = notice.askedBy?.tool;
  const lines = [
    texts.lead[notice.event],
    '',
    notice.message,
    '',
    ...(tool ? [texts.askedBy(tool)] : []),
    `${texts.expires}: ${expires}`,
    ...(notice.escalated ? ['', texts.escalated] : []),
    '',
    ...(notice.url ? [`${texts.answer}: ${notice.url}`] : []),
    `${texts.inbox}: ${notice.inboxUrl}`,
    '',
    texts.forward,
  ];
  const dir = locale === 'ar' ? 'rtl' : 'ltr';
  const html = [
    `<!doctype html><html lang="${locale}" dir="${dir}"><body style="font-family:system-ui,sans-serif;line-height:1.5">`,
    `<p>${escapeHtml(texts.lead[notice.event])}</p>`,
    `<blockquote style="margin:0 0 1em;padding:.5em 1em;border-inline-start:4px solid #888">${escapeHtml(notice.message).replace(/\n/g, '<br>')}</blockquote>`,
    tool ? `<p>${escapeHtml(texts.askedBy(tool))}</p>` : '',
    `<p>${escapeHtml(texts.expires)}: <time datetime="${escapeHtml(notice.expiresAt)}">${escapeHtml(expires)}</time></p>`,
    notice.escalated ? `<p>${escapeHtml(texts.escalated)}</p>` : '',
    notice.url ? `<p><a href="${escapeHtml(notice.url)}">${escapeHtml(texts.answer)}</a></p>` : '',
    `<p><a href="${escapeHtml(notice.inboxUrl)}">${escapeHtml(texts.inbox)}</a></p>`,
    `<p style="color:#555">${escapeHtml(texts.forward)}</p>`,
    '</body></html>',
  ].join('');
  return { subject: `${texts.subject[notice.event]}: ${shortText(notice.message, 60)}`, text: lines.join('\n'), html };
}

/** An ISO time as the contact reads it (their `timeZone` when the contact has one, else UTC, named). */
function formatTime(iso: string, locale: string, timeZone: unknown): string {
  const zone = typeof timeZone === 'string' ? timeZone : 'UTC';
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone, timeZoneName: 'short' }).format(
      new Date(iso),
    );
  } catch {
    return iso;
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}
