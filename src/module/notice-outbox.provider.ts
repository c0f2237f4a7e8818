import type { Provider } from '@nestjs/common';
import { ElicitationConfigError } from '../errors/elicitation-config.error.js';
import { inboxUrl, pageUrl } from '../lifecycle/page-urls.js';
import { NoticeOutbox } from '../notify/notice-outbox.js';
import { ElicitationTelemetry } from '../observability/elicitation-telemetry.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../options/resolved-options.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';

/** The outbox's members, which `notify` needs the store to offer. */
const OUTBOX_MEMBERS = ['addNotices', 'claimNotices', 'settleNotice', 'noticeStats'] as const;

/**
 * The notifications' outbox (`notify`, `reminders`, `escalateTo`, `resolveContact`, `outbox`), with the page and inbox
 * URLs its notices link to. With notifiers, a store without an outbox is refused at start-up.
 */
export const noticeOutboxProvider: Provider = {
  provide: NoticeOutbox,
  inject: [ELICITATION_RESOLVED_OPTIONS, ELICITATION_OBSERVED_STORE, ElicitationTelemetry],
  useFactory: (options: ResolvedElicitationOptions, store: ElicitationStore, telemetry: ElicitationTelemetry) => {
    const { notifications } = options;
    const missing = OUTBOX_MEMBERS.filter((member) => typeof store[member] !== 'function');
    if (notifications.notifiers.length > 0 && missing.length > 0) {
      throw new ElicitationConfigError(
        'notify',
        `needs a store with an outbox, and ${store.constructor.name} lacks ${missing.join(', ')} (the memory, Redis and PostgreSQL stores have one)`,
        { value: notifications.notifiers.map((n) => n.name) },
      );
    }
    const urls = {
      page: (record: { id: string; kind: string }) => pageUrl(options, record.id, record.kind),
      inbox: () => inboxUrl(options),
    };
    return new NoticeOutbox(notifications, store, urls, telemetry);
  },
};
