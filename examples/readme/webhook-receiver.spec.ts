import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { webhookNotifier, type ElicitationNotice } from 'nestjs-mcp-elicitation';
import { ElicitationWebhookController } from './webhook-receiver.js';

const SECRET = 'whsec_readme_0123456789abcdefghijklmnop';
const notice: ElicitationNotice = {
  id: 'ntc_readme',
  event: 'created',
  elicitationId: '0b0e7c1e-58f4-4c0e-9d55-8c1b9f0f3a11',
  userId: 'alice',
  kind: 'confirm',
  message: 'Deploy?',
  url: 'https://mcp.example.com/elicit/0b0e7c1e-58f4-4c0e-9d55-8c1b9f0f3a11/confirm',
  inboxUrl: 'https://mcp.example.com/elicit/inbox',
  askedAt: new Date().toISOString(),
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
};

@Module({ controllers: [ElicitationWebhookController] })
class ReceiverModule {}

describe("the guide's webhook receiver (docs/reaching-people.md), with webhookNotifier sending to it", () => {
  let app: INestApplication;
  let url: string;
  beforeAll(async () => {
    process.env.WEBHOOK_SECRET = SECRET;
    app = await NestFactory.create(ReceiverModule, { rawBody: true, logger: false });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/elicitation`;
  });
  afterAll(() => app.close());

  it('takes a signed notice once (a second delivery of the same id is skipped) and refuses another secret with 403', async () => {
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await webhookNotifier({ url, secret: SECRET }).send(notice, {});
      await webhookNotifier({ url, secret: SECRET }).send(notice, {});
      expect(log.mock.calls.map((c) => String(c[0]))).toEqual([`elicitation.created for alice: Deploy? (${notice.url})`]);
      const forged = await webhookNotifier({ url, secret: `${SECRET}-other` })
        .send(notice, {})
        .catch((e: unknown) => e);
      expect(String(forged)).toBe('NoticeDeliveryError: the receiver answered HTTP 403');
    } finally {
      log.mockRestore();
    }
  });
});
