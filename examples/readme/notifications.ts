import { Module } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import { ElicitationModule, emailNotifier, slackNotifier, webhookNotifier } from 'nestjs-mcp-elicitation';
import { RedisElicitationStore } from 'nestjs-mcp-elicitation/redis';

/** Where your people are: your user directory. */
const directory = new Map([
  ['alice', { email: 'alice@example.com', locale: 'de', slackUserId: 'U024BE7LH', manager: 'carol' }],
  ['carol', { email: 'carol@example.com', locale: 'en' }],
]);

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: 'https://mcp.example.com',
      store: new RedisElicitationStore(process.env.REDIS_URL!),
      encryptionKey: process.env.ELICITATION_KEY!,
      notify: [
        webhookNotifier({ url: 'https://hooks.example.com/elicitation', secret: process.env.WEBHOOK_SECRET! }),
        emailNotifier({ transport: createTransport({ host: 'smtp.example.com', port: 587 }), from: 'Approvals <approvals@example.com>' }),
        slackNotifier({ webhookUrl: process.env.SLACK_WEBHOOK_URL! }),
      ],
      // What each notifier needs to reach a user: the e-mail notifier reads `email` and `locale`, Slack `slackUserId`.
      resolveContact: (userId) => directory.get(userId),
      // An hour and ten minutes before a question expires, to whoever has not answered yet.
      reminders: [{ beforeExpiryMs: 3_600_000 }, { beforeExpiryMs: 600_000 }],
      // The last reminder also goes to the user's manager.
      escalateTo: (userId) => directory.get(userId)?.manager,
    }),
  ],
})
export class NotifyingModule {}
