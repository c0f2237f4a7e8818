/**
 * A webhook receiver on loopback for the notification e2e tests: a plain node:http server that records every post
 * as it arrives (its path, `Idempotency-Key`, parsed body and whether `verifyWebhookSignature` accepts it), then
 * answers as the test's `answer` says: a status code, after an optional hold (a slow receiver), which `release`
 * ends early. A post whose sender is gone before its answer keeps no status. `close` ends every connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER, type WebhookNoticeBody } from '../../src/index.js';

/** One post as the receiver got it. */
export interface Delivery {
  /** The request path: the tests give each instance a path of its own (`/a`, `/b`), so it says who sent it. */
  readonly path: string;
  /** The `Idempotency-Key` header. */
  readonly key: string | undefined;
  /** Whether `verifyWebhookSignature` accepted the post (the raw body, the signature header, the secret). */
  readonly valid: boolean;
  readonly body: WebhookNoticeBody;
  /** When it arrived, epoch milliseconds. */
  readonly at: number;
  /** The status it was answered with; absent while held, or when the sender was gone before the answer. */
  status?: number;
}

/** How to answer a post: a status, sent after `holdMs` (or at `release()`, whichever comes first). */
export interface Answer {
  readonly status: number;
  readonly holdMs?: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every post, in arrival order. */
  readonly deliveries: Delivery[];
  /** Decides each post's answer (default: 200 at once); `seen` counts the earlier posts with the same key. */
  answer: (delivery: Delivery, seen: number) => Answer;
  /** Answers every held post whose sender is still connected, now. */
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const held = new Set<() => void>();
  const sockets = new Set<Socket>();
  const deliveries: Delivery[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: WebhookNoticeBody;
    try {
      body = JSON.parse(raw) as WebhookNoticeBody;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const key = req.headers['idempotency-key'];
    const delivery: Delivery = {
      path: req.url ?? '',
      key: typeof key === 'string' ? key : undefined,
      valid: verifyWebhookSignature({ secret, body: raw, header: req.headers[WEBHOOK_SIGNATURE_HEADER] }),
      body,
      at: Date.now(),
    };
    const seen = deliveries.filter((d) => d.key === delivery.key).length;
    deliveries.push(delivery);
    const { status, holdMs = 0 } = receiver.answer(delivery, seen);
    // A sender that died (or gave up) while its post was held gets no answer, and the post none recorded.
    let gone = false;
    res.once('close', () => (gone = !res.writableEnded));
    const send = () => {
      held.delete(send);
      clearTimeout(timer);
      if (gone || res.destroyed || res.writableEnded) return;
      delivery.status = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    };
    const timer = setTimeout(send, holdMs);
    if (holdMs > 0) held.add(send);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    answer: () => ({ status: 200 }),
    release: () => [...held].forEach((send) => send()),
    close: async () => {
      receiver.release();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
