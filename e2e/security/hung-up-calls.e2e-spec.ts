/**
 * #28 item 4: one user in one session had 120 identical calls accepted, and once the client hung up all 120 waits
 * stayed until the elicitation expired or the session closed. Here, over real Streamable HTTP with a real SDK 1.x
 * client against the demo's MCP route (`McpController`, with `bindResponse` around each request):
 * - identical calls share one waiter (one entry, one listener per call) and, once the client hangs up (its
 *   transport closed, no DELETE), every wait and keep-alive ends within a bounded time while the question stays
 *   open for a later call;
 * - past `limits.maxCallsInFlightPerSession` (and `...PerUser`) a call gets a JSON-RPC error naming the limit,
 *   while the calls already waiting complete normally once answered.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ElicitationTransitions } from '../../src/lifecycle/elicitation-transitions.js';
import { McpElicitation, type SdkToolServer } from '../../src/mcp/mcp-elicitation.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { startLadderApp, type LadderApp } from '../support/ladder-app.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { submitForm } from '../support/page-form.js';

/** The demo's `approve-deploy`: a confirm page awaited inside the call (2025-11-25). */
function registerDeploy(elicitation: McpElicitation, server: SdkToolServer): void {
  elicitation.registerTool(
    server,
    'approve-deploy',
    { description: 'Deploys an app after you confirm on a web page.', inputSchema: z.object({ app: z.string() }) },
    async ({ app }, ask) => {
      const outcome = await ask.requestUrl({ kind: 'confirm', type: 'deploy-approval', message: `Deploy ${app} to production?` });
      return { content: [{ type: 'text' as const, text: outcome.status === 'completed' ? `Deployed ${app}` : 'Deployment cancelled' }] };
    },
  );
}

/** What the server holds for the calls: the waits on `id`, and the calls waiting on a person. */
function held(app: INestApplication) {
  const waiters = app.get(ElicitationTransitions)['waiters'];
  const inFlight = app.get(McpElicitation)['inFlight'];
  return { waits: (id: string) => waiters.count(id), calls: () => inFlight.size, ids: () => waiters.size };
}

async function until(check: () => boolean, ms: number, what: string): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

const deploy = (c: TestClient, onprogress?: () => void) =>
  c.client.callTool({ name: 'approve-deploy', arguments: { app: 'prod' } }, undefined, {
    timeout: 60_000,
    ...(onprogress && { onprogress, resetTimeoutOnProgress: true }),
  });

/** Confirms a page as `user`'s browser (the demo's cookie identity). */
const confirm = async (ladder: LadderApp, url: string, user: string) => {
  const done = await submitForm(ladder.url, new URL(url).pathname, { action: 'confirm' }, { Cookie: `demo_user=${user}` });
  expect(done.status).toBe(200);
};

describe('Calls that wait for a person: bounded, and released when the client hangs up (#28 item 4)', () => {
  describe('a client that hangs up', () => {
    const N = 40;
    let ladder: LadderApp;
    beforeAll(async () => {
      // Room for the N calls of one session: this test is about what a hang-up leaves behind, not about the cap.
      ladder = await startLadderApp(
        { keepAliveMs: 300, limits: { maxCallsInFlightPerSession: N, maxCallsInFlightPerUser: N } },
        registerDeploy,
      );
    });
    afterAll(async () => {
      await ladder.app.close();
    });

    it(`leaves no wait, timer or call behind for ${N} identical calls, and the question stays open for a later call`, async () => {
      const pushed: string[] = [];
      const c = await connectClient(ladder.mcpUrl, {
        user: 'hana',
        onElicit: (params) => {
          if (params.mode === 'url') pushed.push(params.elicitationId);
          return Promise.resolve({ action: 'accept' });
        },
      });
      let progress = 0;
      const onprogress = () => progress++;
      const ended: Array<Promise<unknown>> = [deploy(c, onprogress).catch((e: unknown) => e)];
      await until(() => pushed.length === 1, 5_000, 'the first call shows its page');
      const [id] = pushed;
      // The others take the same page up (the earlier call's question), as the probe's 120 did.
      for (let i = 1; i < N; i++) ended.push(deploy(c, onprogress).catch((e: unknown) => e));
      const { waits, calls, ids } = held(ladder.app);
      await until(() => waits(id) === N, 30_000, `${N} waits on the one page`);
      expect(new Set(pushed)).toEqual(new Set([id]));
      expect(calls()).toBe(N);
      await until(() => progress >= N, 5_000, 'keep-alive progress on the calls');
      // The client hangs up: its transport closes every stream, and no DELETE ends the session.
      await c.transport.close();
      const ms = await until(() => waits(id) === 0 && calls() === 0, 5_000, 'the waits and calls released after the hang-up');
      expect(ms).toBeLessThan(5_000);
      console.log(`hung-up calls: ${N} identical calls on one page, every wait and call released ${ms} ms after the client hung up`);
      expect(ids()).toBe(0);
      await Promise.all(ended);
      // The keep-alive timers stopped with their calls: no progress is sent (or counted) any more.
      const after = progress;
      await new Promise((r) => setTimeout(r, 200));
      expect(progress).toBe(after);

      // Nothing stored was touched: the page is still pending, and the next identical call takes it up.
      const store = ladder.app.get(ElicitationStore);
      expect((await store.get(id, Date.now()))?.status).toBe('pending');
      const again = await connectClient(ladder.mcpUrl, {
        user: 'hana',
        onElicit: (params) => {
          if (params.mode === 'url') void confirm(ladder, params.url, 'hana');
          return Promise.resolve({ action: 'accept' });
        },
      });
      try {
        expect(textOf(await deploy(again))).toBe('Deployed prod');
        expect((await store.get(id, Date.now()))?.status).toBe('completed');
      } finally {
        await again.close();
      }
    }, 90_000);
  });

  describe('the caps on calls waiting for answers', () => {
    let ladder: LadderApp;
    beforeAll(async () => {
      ladder = await startLadderApp({ limits: { maxCallsInFlightPerSession: 3, maxCallsInFlightPerUser: 4 } }, registerDeploy);
    });
    afterAll(async () => {
      await ladder.app.close();
    });

    const refusal = async (call: Promise<unknown>) => {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      return error as McpError;
    };

    it('refuses the (cap+1)-th call of a session with a JSON-RPC error, and the first ones complete once answered', async () => {
      const shown: string[] = [];
      let answering = false;
      const c = await connectClient(ladder.mcpUrl, {
        user: 'ivo',
        onElicit: (params) => {
          if (params.mode === 'url') {
            shown.push(params.url);
            // Once the test answers, every page shown is confirmed (a call whose page another claimed asks anew).
            if (answering) void confirm(ladder, params.url, 'ivo');
          }
          return Promise.resolve({ action: 'accept' });
        },
      });
      try {
        const first = [deploy(c)];
        await until(() => shown.length === 1, 5_000, 'the first page');
        first.push(deploy(c), deploy(c));
        const { waits, calls } = held(ladder.app);
        const id = new URL(shown[0]).pathname.split('/')[2];
        await until(() => waits(id) === 3, 10_000, 'three calls waiting');

        const error = await refusal(deploy(c));
        expect(error.code).toBe(-32005);
        expect(error.message).toBe(
          'MCP error -32005: Too many tool calls waiting for answers in this session (limits.maxCallsInFlightPerSession = 3): answer or cancel one, then call again.',
        );
        expect(error.data).toEqual({ limit: 'limits.maxCallsInFlightPerSession', value: 3 });
        // The refused call touched nothing: the page is pending, the three still wait on it.
        expect((await ladder.app.get(ElicitationStore).get(id, Date.now()))?.status).toBe('pending');
        expect(waits(id)).toBe(3);
        expect(calls()).toBe(3);

        answering = true;
        await confirm(ladder, shown[0], 'ivo');
        const results = await Promise.all(first);
        expect(results.map(textOf)).toEqual(['Deployed prod', 'Deployed prod', 'Deployed prod']);
        expect(calls()).toBe(0);
        // With the slots given back, a call goes through again.
        answering = true;
        expect(textOf(await deploy(c))).toBe('Deployed prod');
      } finally {
        await c.close();
      }
    });

    it('refuses a call past the per-user cap in another session of the same user', async () => {
      const shown: string[] = [];
      const sessions = await Promise.all(
        [0, 1].map(() =>
          connectClient(ladder.mcpUrl, {
            user: 'juno',
            onElicit: (params) => {
              if (params.mode === 'url') shown.push(params.url);
              return Promise.resolve({ action: 'accept' });
            },
          }),
        ),
      );
      const [a, b] = sessions;
      try {
        const waiting = [deploy(a).catch((e: unknown) => e)];
        await until(() => shown.length === 1, 5_000, 'the first page');
        waiting.push(
          deploy(a).catch((e: unknown) => e),
          deploy(a).catch((e: unknown) => e),
          deploy(b).catch((e: unknown) => e),
        );
        await until(() => held(ladder.app).calls() === 4, 10_000, 'four calls waiting');
        const error = await refusal(deploy(b));
        expect(error.code).toBe(-32005);
        expect(error.message).toContain('for this user (limits.maxCallsInFlightPerUser = 4)');
        // Hanging up both releases them all.
        await Promise.all(sessions.map((s) => s.transport.close()));
        await until(() => held(ladder.app).calls() === 0, 5_000, 'the calls released');
        await Promise.all(waiting);
      } finally {
        await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
      }
    });
  });
});
