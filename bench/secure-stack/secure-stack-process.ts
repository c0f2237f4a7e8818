/**
 * The secure-stack baseline (secure-stack.app.ts) as bench/http.bench.ts runs it: one process per throttler window,
 * started beside the demo on the same adapter, its records seeded and its CSRF pair read the way a browser gets it.
 */
import { fileURLToPath } from 'node:url';
import { type DemoProcess, startDemoProcess } from '../../examples/demo/demo-process.js';

/** The compiled entry point (dist-demo/bench/secure-stack/main.js, from `npm run build:demo`). */
export const SECURE_STACK_MAIN = fileURLToPath(new URL('./main.js', import.meta.url));

/**
 * The throttler windows the stack is measured with: its storage keeps one expiry per hit in the window, so a short
 * window is its best configuration and a long one (what rate limits of pages are set to) costs more per request.
 */
export const SECURE_WINDOWS = { short: 1_000, long: 60_000 } as const;
export type SecureWindow = keyof typeof SECURE_WINDOWS;

/** Starts the stack on `adapter` with the throttler window `window`. */
export function startSecureStack(adapter: 'express' | 'fastify', window: SecureWindow): Promise<DemoProcess> {
  return startDemoProcess(
    { ELICITATION_ADAPTER: adapter, SECURE_STACK_THROTTLE_TTL_MS: String(SECURE_WINDOWS[window]) },
    { main: SECURE_STACK_MAIN, ready: /secure stack baseline ready/ },
  );
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return res;
}

/** Forgets the stack's records and creates `count` pending ones for `userId`, `batch` at a time; their ids. */
export async function seedSecureStack(
  stack: DemoProcess,
  count: number,
  userId: string,
  message: string,
  batch: number,
): Promise<string[]> {
  await call(`${stack.url}/bench/records`, { method: 'DELETE' });
  const ids: string[] = [];
  while (ids.length < count) {
    const res = await call(`${stack.url}/bench/records`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ count: Math.min(count - ids.length, batch), userId, message }),
    });
    ids.push(...((await res.json()) as { ids: string[] }).ids);
  }
  return ids;
}

/**
 * The CSRF pair a browser holds after opening a page of the stack: the form's token and the cookie (`name=value`).
 * Both CSRF libraries bind it to the browser (and csrf-csrf to the user), not to one record, so one pair posts every
 * seeded record.
 */
export async function secureCsrfPair(
  stack: DemoProcess,
  id: string,
  userCookie: string,
): Promise<{ page: string; token: string; cookie: string }> {
  const res = await call(`${stack.url}/elicit/${id}/api-key`, { headers: { Cookie: userCookie } });
  const page = await res.text();
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
  if (!token || !cookie) throw new Error(`the secure stack's page carries no CSRF pair: ${page.slice(0, 300)}`);
  return { page, token, cookie };
}
