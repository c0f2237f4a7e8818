import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import { ElicitationThrottledException } from './exceptions/elicitation-throttled.exception.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';

/** Until src/index.ts exports it from its own file in errors/ (its old home was this file). */

/**
 * Per-IP throttling of the module's own routes only (the pages and the status route), to stop id
 * guessing; the host app's other routes are untouched. A fixed window per client IP, counted in the
 * elicitation store (`store.hit`), so every instance on a shared (Redis) store sees the same count.
 * The client IP is Express's / Fastify's `req.ip` (set `trust proxy` behind a proxy).
 *
 * (`@nestjs/throttler` 6 is CommonJS and `require`s `@nestjs/common`, which Nest 12 ships as ESM only:
 * that works in Node 20.19+ but cannot be loaded by jest on Node 20, so the module counts itself.)
 */
@Injectable()
export class ElicitationThrottlerGuard implements CanActivate {
  constructor(
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const throttle = this.options.throttle;
    if (!throttle) return true;
    return this.count(context, throttle);
  }

  private async count(context: ExecutionContext, throttle: Exclude<ElicitationPageOptions['throttle'], false>): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<{ ip?: string; socket?: { remoteAddress?: string }; raw?: { socket?: { remoteAddress?: string } } }>();
    const ip = req.ip ?? req.socket?.remoteAddress ?? req.raw?.socket?.remoteAddress ?? 'unknown';
    const now = Date.now();
    let hit: { count: number; resetAt: number };
    try {
      hit = await this.store.hit(`ip:${ip}`, throttle.ttlMs, now);
    } catch (error) {
      // Store down: let the route answer (it reports 503 itself) rather than turn every request into a 500.
      if (error instanceof ElicitationStoreUnavailableError) return true;
      throw error;
    }
    const { count, resetAt } = hit;
    const res = http.getResponse<{ header(name: string, value: string): unknown }>();
    const remaining = Math.max(throttle.limit - count, 0);
    const retryAfter = Math.max(Math.ceil((resetAt - now) / 1000), 1);
    res.header('RateLimit-Limit', String(throttle.limit));
    res.header('RateLimit-Remaining', String(remaining));
    res.header('RateLimit-Reset', String(retryAfter));
    if (count <= throttle.limit) return true;
    res.header('Retry-After', String(retryAfter));
    throw new ElicitationThrottledException(retryAfter);
  }
}
