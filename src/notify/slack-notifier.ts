import type { ElicitationNotifier } from '../core/notice.js';
import { checkedNoticeUrl, postJson } from './notice-http.js';
import { noticeTexts, shortText } from './notice-texts.js';

/** Options of `slackNotifier`. */
export interface SlackNotifierOptions {
  /** The Slack incoming webhook's URL (`https://hooks.slack.com/services/…`): a secret, never logged. */
  webhookUrl: string;
  /** The notifier's name. @default 'slack' */
  name?: string;
  /** How long one post may take, in milliseconds. @default 8000 */
  timeoutMs?: number;
}

/**
 * Posts each notice to a Slack incoming webhook: the message, what asked, the expiry, and a button to the page
 * (mentioning the contact's `slackUserId` when it has one). English, in the contact's `locale` where it is de or ar.
 */
export function slackNotifier(options: SlackNotifierOptions): ElicitationNotifier {
  const url = checkedNoticeUrl('slackNotifier({ webhookUrl })', options?.webhookUrl);
  const timeoutMs = options.timeoutMs ?? 8_000;
  return {
    name: options.name ?? 'slack',
    async send(notice, contact) {
      const { texts } = noticeTexts(contact.locale);
      const mention =
        typeof contact.slackUserId === 'string' && /^[UW][A-Z0-9]{2,20}$/.test(contact.slackUserId) ? `<@${contact.slackUserId}> ` : '';
      const expiresAt = Math.floor(Date.parse(notice.expiresAt) / 1000);
      const context = [
        ...(notice.askedBy?.tool ? [texts.askedBy(slackEscape(notice.askedBy.tool))] : []),
        `${texts.expires}: <!date^${expiresAt}^{date_short_pretty} {time}|${notice.expiresAt}>`,
        ...(notice.escalated ? [texts.escalated] : []),
      ];
      const link = notice.url ?? notice.inboxUrl;
      const body = {
        text: `${texts.subject[notice.event]}: ${slackEscape(shortText(notice.message, 150))}`,
        blocks: [
          {
            type: 'section',
            text: {
              type: 'mrkdwn',
              text: `${mention}${texts.lead[notice.event]}\n>${slackEscape(shortText(notice.message, 2_500)).replace(/\n/g, '\n>')}`,
            },
          },
          { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) },
          {
            type: 'actions',
            elements: [
              { type: 'button', text: { type: 'plain_text', text: notice.url ? texts.answer : texts.inbox }, url: link, action_id: 'open' },
            ],
          },
        ],
      };
      await postJson(url, JSON.stringify(body), { 'idempotency-key': notice.id }, timeoutMs);
    },
  };
}

/** Slack's three control characters escaped, so a message cannot mention @channel or forge a link. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
