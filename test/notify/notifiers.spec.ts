import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import nodemailer from 'nodemailer';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { ElicitationNotice } from '../../src/core/notice.js';
import { emailNotifier } from '../../src/notify/email-notifier.js';
import { slackNotifier } from '../../src/notify/slack-notifier.js';
import { webhookNotifier } from '../../src/notify/webhook-notifier.js';
import { verifyWebhookSignature, webhookSignatureHeader, WEBHOOK_SIGNATURE_HEADER } from '../../src/notify/webhook-signature.js';

const SECRET = 'whsec_0123456789abcdefghijklmnopqrstuvwxyz';

const notice: ElicitationNotice = {
  id: 'ntc_abc',
  event: 'created',
  elicitationId: '0b0e7c1e-58f4-4c0e-9d55-8c1b9f0f3a11',
  userId: 'alice',
  kind: 'confirm',
  message: 'Drop table <users> & "orders"?',
  url: 'https://mcp.example.com/elicit/0b0e7c1e-58f4-4c0e-9d55-8c1b9f0f3a11/confirm',
  inboxUrl: 'https://mcp.example.com/elicit/inbox',
  askedBy: { tool: 'drop-table', client: 'inspector' },
  askedAt: '2026-12-02T10:00:00.000Z',
  expiresAt: '2026-12-02T10:10:00.000Z',
};

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on loopback answering each post with the next status of `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.statusCode = statuses.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('webhookNotifier', () => {
  it('posts signed JSON with the idempotency key; the verify helper accepts it, and refuses a changed body, another secret or an old time', async () => {
    const r = await receiver();
    try {
      await webhookNotifier({ url: r.url, secret: SECRET }).send(notice, { email: 'alice@example.com' });
      expect(r.received).toHaveLength(1);
      const [{ headers, body }] = r.received;
      expect(headers['idempotency-key']).toBe('ntc_abc');
      expect(headers['content-type']).toBe('application/json');
      expect(JSON.parse(body)).toEqual({
        id: 'ntc_abc',
        type: 'elicitation.created',
        data: { ...notice, contact: { email: 'alice@example.com' } },
      });
      const header = headers[WEBHOOK_SIGNATURE_HEADER];
      expect(verifyWebhookSignature({ secret: SECRET, body, header })).toBe(true);
      expect(verifyWebhookSignature({ secret: SECRET, body: body.replace('alice', 'mallory'), header })).toBe(false);
      expect(verifyWebhookSignature({ secret: `${SECRET}x`, body, header })).toBe(false);
      expect(verifyWebhookSignature({ secret: SECRET, body, header, now: Date.now() + 301_000 })).toBe(false);
      expect(verifyWebhookSignature({ secret: SECRET, body, header: undefined })).toBe(false);
      expect(verifyWebhookSignature({ secret: SECRET, body, header: 't=1,v1=zz' })).toBe(false);
      const old = webhookSignatureHeader(SECRET, Math.floor(Date.now() / 1000) - 3_600, body);
      expect(verifyWebhookSignature({ secret: SECRET, body, header: old })).toBe(false);
    } finally {
      await r.close();
    }
  });

  it('throws on an answer that is not a 2xx (the outbox retries), naming the status and not the URL', async () => {
    const r = await receiver([503]);
    try {
      const error = await webhookNotifier({ url: `${r.url}?token=s3cret`, secret: SECRET })
        .send(notice, {})
        .catch((e: unknown) => e);
      expect(String(error)).toBe('NoticeDeliveryError: the receiver answered HTTP 503');
      expect(String(error)).not.toContain('s3cret');
    } finally {
      await r.close();
    }
  });

  it('refuses a short secret and a URL with credentials, without echoing them', () => {
    expect(() => webhookNotifier({ url: 'https://example.com/hook', secret: 'short' })).toThrow(
      /secret.*at least 32 characters, got 5 characters/,
    );
    expect(() => webhookNotifier({ url: 'https://user:pw@example.com/hook', secret: SECRET })).toThrow(/without credentials/);
    expect(() => webhookNotifier({ url: 'ftp://example.com', secret: SECRET })).toThrow(/http\(s\) URL/);
  });
});

describe('slackNotifier', () => {
  it('posts the message escaped (no mention or link forged), the mention of the contact and a button to the page', async () => {
    const r = await receiver();
    try {
      const hostile = { ...notice, message: 'Approve <!channel> <https://evil.example|here>?' };
      await slackNotifier({ webhookUrl: r.url }).send(hostile, { slackUserId: 'U024BE7LH' });
      const body = JSON.parse(r.received[0].body) as { text: string; blocks: Array<Record<string, unknown>> };
      expect(body.text).toContain('&lt;!channel&gt;');
      expect(r.received[0].body).not.toContain('<!channel>');
      expect(r.received[0].body).not.toContain('<https://evil');
      expect(JSON.stringify(body.blocks[0])).toContain('<@U024BE7LH>');
      expect(body.blocks[2]).toEqual({
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Answer the question' }, url: notice.url, action_id: 'open' }],
      });
      expect(JSON.stringify(body.blocks[1])).toContain('drop-table');
    } finally {
      await r.close();
    }
  });
});

describe('emailNotifier, through nodemailer to a real SMTP server on loopback', () => {
  const mails: Array<{ from: string; to: string[]; raw: string }> = [];
  let smtp: SMTPServer;
  let port = 0;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (d: Buffer) => (raw += d.toString('utf8')));
        stream.on('end', () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((t) => t.address),
            raw,
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    port = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

  const transport = () => nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });

  it('writes a short mail, text and HTML, with the message escaped in the HTML, the link and the notice id', async () => {
    const notifier = emailNotifier({ transport: transport(), from: 'Approvals <approvals@example.com>' });
    await expect(notifier.send(notice, { email: 'alice@example.com' })).resolves.toBeUndefined();
    const mail = mails.at(-1)!;
    expect(mail.from).toBe('approvals@example.com');
    expect(mail.to).toEqual(['alice@example.com']);
    const parsed = await simpleParse(mail.raw);
    expect(parsed.subject).toBe('A question is waiting for you: Drop table <users> & "orders"?');
    expect(parsed.headers['x-elicitation-notice']).toBe('ntc_abc');
    expect(parsed.text).toContain('Drop table <users> & "orders"?');
    expect(parsed.text).toContain(notice.url);
    expect(parsed.html).toContain('Drop table &lt;users&gt; &amp; &quot;orders&quot;?');
    expect(parsed.html).not.toContain('<users>');
    expect(parsed.html).toContain(`href="${notice.url}"`);
  });

  it('writes German and Arabic (right to left) for contacts in those languages; skips a contact without an address', async () => {
    const notifier = emailNotifier({ transport: transport(), from: 'approvals@example.com' });
    await notifier.send({ ...notice, event: 'reminder', beforeExpiryMs: 60_000 }, { email: 'bernd@example.com', locale: 'de-DE' });
    expect((await simpleParse(mails.at(-1)!.raw)).subject).toMatch(/^Erinnerung: Eine Frage wartet auf Sie/);
    await notifier.send(notice, { email: 'amal@example.com', locale: 'ar' });
    const ar = await simpleParse(mails.at(-1)!.raw);
    expect(ar.subject).toMatch(/^سؤال بانتظارك/);
    expect(ar.html).toContain('dir="rtl"');
    const before = mails.length;
    await expect(notifier.send(notice, { name: 'no address' })).resolves.toBe('skipped');
    expect(mails).toHaveLength(before);
  });
});

/** The subject, headers, text and HTML of a raw mail, as a mail client reads them (mailparser). */
async function simpleParse(raw: string): Promise<{ subject: string; headers: Record<string, string>; text: string; html: string }> {
  const mail = await simpleParser(raw);
  const headers: Record<string, string> = {};
  for (const [key, value] of mail.headers) if (typeof value === 'string') headers[key] = value;
  return { subject: mail.subject ?? '', headers, text: mail.text ?? '', html: typeof mail.html === 'string' ? mail.html : '' };
}
