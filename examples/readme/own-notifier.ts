import type { ElicitationNotifier } from 'nestjs-mcp-elicitation';

/** Sends an SMS through your provider's client: anything with a `send` is a notifier. */
export function smsNotifier(sms: { send(to: string, text: string): Promise<void> }): ElicitationNotifier {
  return {
    name: 'sms',
    async send(notice, contact) {
      // Nothing to send to: not a failure, so not retried.
      if (typeof contact.phone !== 'string') return 'skipped';
      const link = notice.url ?? notice.inboxUrl;
      // Throwing (the provider is down) has the outbox retry with backoff, under the same notice id.
      await sms.send(contact.phone, `${notice.message.slice(0, 100)} ${link}`);
    },
  };
}
