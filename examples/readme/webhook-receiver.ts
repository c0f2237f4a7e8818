import { Controller, ForbiddenException, Headers, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import type { Request } from 'express';
import { verifyWebhookSignature, type WebhookNoticeBody } from 'nestjs-mcp-elicitation';

const seen = new Set<string>();

/**
 * The receiving side of `webhookNotifier`, in another Nest app created with `NestFactory.create(AppModule, { rawBody:
 * true })`: the signature is checked on the body exactly as it arrived, and a notice seen before is skipped.
 */
@Controller('elicitation')
export class ElicitationWebhookController {
  @Post()
  @HttpCode(204)
  receive(@Req() req: RawBodyRequest<Request>, @Headers('elicitation-signature') signature: string | undefined): void {
    const body = req.rawBody ?? Buffer.alloc(0);
    if (!verifyWebhookSignature({ secret: process.env.WEBHOOK_SECRET!, body, header: signature })) throw new ForbiddenException();
    const notice = JSON.parse(body.toString('utf8')) as WebhookNoticeBody;
    // At least once: the same id may come again (an instance that died after sending, before recording it).
    if (seen.has(notice.id)) return;
    seen.add(notice.id);
    console.log(`${notice.type} for ${notice.data.userId}: ${notice.data.message} (${notice.data.url ?? notice.data.inboxUrl})`);
  }
}
