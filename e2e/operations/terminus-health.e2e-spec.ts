/**
 * `ElicitationHealthIndicator` (`nestjs-mcp-elicitation/terminus`) in real Nest apps with `TerminusModule`, over
 * HTTP, through the README's own controller (examples/readme/health.ts: `GET /health`, `timeoutMs: 1000`): 200
 * with the memory store and with a real Redis, 503 when Redis stops (a redis-server this file starts on a free
 * port) and 200 again once it is back, 503 when the store's event channel is not live, when the store's ping
 * fails or hangs (the timeout), and while the app shuts down.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type BeforeApplicationShutdown, type INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from '../../examples/readme/health.js';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import type { ElicitationEventChannel, ElicitationStore } from '../../src/stores/elicitation-store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { ElicitationHealthIndicator } from '../../src/terminus/index.js';
import {
  describeWithRedisBinaries,
  freePort,
  HOST,
  startRedisServer,
  stopProcess,
  waitUntil,
  within,
  type ServerProcess,
} from '../../test/support/redis-server.js';

interface HealthAnswer {
  status: number;
  ms: number;
  body: { status: string; info?: Record<string, unknown>; error?: Record<string, unknown>; details?: Record<string, unknown> };
}

/** A real app: TerminusModule, the module on `store`, the README's health controller and the indicator. */
async function startHealthApp(
  store?: ElicitationStore,
  extraProviders: Array<new (...args: never[]) => unknown> = [],
  options: Partial<ElicitationModuleOptions> = {},
) {
  @Module({
    imports: [
      TerminusModule.forRoot({ logger: false }),
      ElicitationModule.forRoot({ baseUrl: 'http://127.0.0.1', store, cleanupIntervalMs: 0, encryptionKey: ENCRYPTION_KEY, ...options }),
    ],
    controllers: [HealthController],
    providers: [ElicitationHealthIndicator, ...extraProviders],
  })
  class TestHealthModule {}
  const app = await NestFactory.create(TestHealthModule, { logger: false });
  await app.listen(0, HOST);
  const url = (await app.getUrl()).replace('[::1]', HOST);
  const health = async (): Promise<HealthAnswer> => {
    const started = Date.now();
    const res = await fetch(`${url}/health`);
    return { status: res.status, ms: Date.now() - started, body: (await res.json()) as HealthAnswer['body'] };
  };
  return { app, url, health };
}

const ENCRYPTION_KEY = 'a'.repeat(64);
const apps: INestApplication[] = [];
async function started(
  store?: ElicitationStore,
  extra: Array<new (...args: never[]) => unknown> = [],
  options: Partial<ElicitationModuleOptions> = {},
) {
  const started = await startHealthApp(store, extra, options);
  apps.push(started.app);
  return started;
}
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A memory store with an event channel whose liveness the test sets (with `isLive` or, `undefined`, without). */
class ChannelStore extends MemoryElicitationStore {
  channelLive: boolean | undefined = true;
  override openEventChannel(): Promise<ElicitationEventChannel> {
    const channel: ElicitationEventChannel = { publish: () => Promise.resolve(), close: () => Promise.resolve() };
    if (this.channelLive !== undefined) channel.isLive = () => this.channelLive === true;
    return Promise.resolve(channel);
  }
}

/** A memory store whose outbox no instance claims from (every instance down, as the health check sees it). */
class UnclaimedOutboxStore extends MemoryElicitationStore {
  override claimNotices(): Promise<never[]> {
    return Promise.resolve([]);
  }
}

describe('ElicitationHealthIndicator with TerminusModule over HTTP', () => {
  it('reports the notification outbox: up with its counts, 503 once a due notice waited past outbox.healthMaxAgeMs', async () => {
    const notify = [{ name: 'hook', send: () => Promise.resolve() }];
    const outbox = { pollIntervalMs: 50, healthMaxAgeMs: 1_000 };
    const { app, health } = await started(new UnclaimedOutboxStore(), [], { notify, outbox });
    await app.get(ElicitationService).createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'alice' });
    await new Promise((r) => setTimeout(r, 200));
    const fresh = await health();
    expect(fresh.status).toBe(200);
    expect(fresh.body.details?.elicitation).toMatchObject({ status: 'up', outbox: { status: 'up', pending: 2, failed: 0 } });
    await new Promise((r) => setTimeout(r, 1_200));
    const stale = await health();
    expect(stale.status).toBe(503);
    expect(stale.body.error?.elicitation).toMatchObject({ status: 'down', store: 'up', outbox: { status: 'down', pending: 2 } });
  });

  it('GET /health answers 200 with the memory store (no ping: up; no channel: events in process)', async () => {
    const { health } = await started();
    const answer = await health();
    const up = { elicitation: { status: 'up', store: 'up', events: 'in-process' } };
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: 'ok', info: up, error: {}, details: up });
  });

  it('answers 503 naming the events when the store event channel is not live, and 200 again once it is', async () => {
    const store = new ChannelStore();
    const { health } = await started(store);
    expect((await health()).body.details).toEqual({ elicitation: { status: 'up', store: 'up', events: 'live' } });

    store.channelLive = false;
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('error');
    expect(down.body.error).toEqual({ elicitation: { status: 'down', store: 'up', events: 'down' } });

    store.channelLive = true;
    expect((await health()).status).toBe(200);
  });

  it('counts a channel without isLive as live', async () => {
    const store = new ChannelStore();
    store.channelLive = undefined;
    const { health } = await started(store);
    const answer = await health();
    expect(answer.status).toBe(200);
    expect(answer.body.details).toEqual({ elicitation: { status: 'up', store: 'up', events: 'live' } });
  });

  it('answers 503 store down when the ping fails, without the error text', async () => {
    const store = new MemoryElicitationStore();
    store.ping = () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:6379'));
    const { health } = await started(store);
    const answer = await health();
    expect(answer.status).toBe(503);
    expect(answer.body.error).toEqual({ elicitation: { status: 'down', store: 'down', events: 'in-process' } });
    expect(JSON.stringify(answer.body)).not.toContain('10.1.2.3');
  });

  it('a ping that hangs answers 503 store timeout after timeoutMs (1 s in the README controller), every time', async () => {
    const store = new MemoryElicitationStore();
    let pings = 0;
    store.ping = () => {
      pings++;
      return new Promise<void>(() => undefined);
    };
    const { app, health } = await started(store);
    for (let i = 0; i < 2; i++) {
      const answer = await within(5_000, 'the health route with a hanging ping', health());
      expect(answer.status).toBe(503);
      expect(answer.body.error).toEqual({ elicitation: { status: 'down', store: 'timeout', events: 'in-process' } });
      expect(answer.ms).toBeGreaterThanOrEqual(950);
      expect(answer.ms).toBeLessThan(2_500);
    }
    expect(pings).toBe(2);

    // The timeout is the caller's: a shorter one answers sooner.
    const indicator = app.get(ElicitationHealthIndicator);
    const before = Date.now();
    await expect(indicator.isHealthy('store', { timeoutMs: 100 })).resolves.toEqual({
      store: { status: 'down', store: 'timeout', events: 'in-process' },
    });
    expect(Date.now() - before).toBeLessThan(600);
    await expect(indicator.isHealthy('store', { timeoutMs: 0 })).rejects.toThrow(RangeError);
  });

  it('answers 503 shuttingDown while the app shuts down (a slow beforeApplicationShutdown keeps it listening)', async () => {
    let release!: () => void;
    @Injectable()
    class Drain implements BeforeApplicationShutdown {
      beforeApplicationShutdown() {
        return new Promise<void>((resolve) => (release = resolve));
      }
    }
    const { app, health } = await started(undefined, [Drain]);
    expect((await health()).status).toBe(200);
    const closing = app.close();
    await waitUntil('the shutdown to reach beforeApplicationShutdown', 5_000, () => Promise.resolve(release !== undefined));
    const answer = await health();
    expect(answer.status).toBe(503);
    expect(answer.body.error).toEqual({ elicitation: { status: 'down', store: 'up', events: 'in-process', shuttingDown: true } });
    release();
    await closing;
    apps.splice(apps.indexOf(app), 1);
  });
});

describeWithRedisBinaries()('ElicitationHealthIndicator on a real Redis that stops and comes back', () => {
  let port: number;
  let redis: ServerProcess | undefined;
  const redisArgs = () => ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no'];

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port, redisArgs());
  });
  afterAll(async () => {
    if (redis) await stopProcess(redis.child);
  });

  it('200 with the store and its event channel up, 503 while Redis is down, 200 once it is back', async () => {
    const store = new RedisElicitationStore(`redis://${HOST}:${port}`, { keyPrefix: `h15-health-${randomUUID().slice(0, 8)}` });
    const { health } = await started(store);
    // Up once the event channel is live and a ping answers within the controller's 1 s (a busy machine may need a
    // moment after the start for either).
    await waitUntil('GET /health to answer 200', 10_000, async () => (await health()).status === 200);
    const up = await health();
    expect(up.status).toBe(200);
    expect(up.body.details).toEqual({ elicitation: { status: 'up', store: 'up', events: 'live' } });

    await stopProcess(redis!.child);
    redis = undefined;
    const down = await within(5_000, 'the health route with Redis down', health());
    expect(down.status).toBe(503);
    expect(down.ms).toBeLessThan(2_500);
    const error = down.body.error as { elicitation: { status: string; store: string; events: string } };
    expect(error.elicitation.status).toBe('down');
    expect(['down', 'timeout']).toContain(error.elicitation.store);
    expect(error.elicitation.events).toBe('down');

    redis = await startRedisServer(port, redisArgs());
    // ioredis reconnects (at most a second apart) and resubscribes the event channel.
    await waitUntil('GET /health to answer 200 again', 15_000, async () => (await health()).status === 200);
    expect((await health()).body.details).toEqual({ elicitation: { status: 'up', store: 'up', events: 'live' } });
  }, 40_000);
});
