/**
 * Cross-instance completion latency, for every shared store's bench: two demo processes on one store (`env` says
 * which), a real SDK 1.x client on A with URL mode, the api-key page of each question submitted on B as a browser
 * does; from just before the POST to the completion notification at the client. The answers go in rounds of
 * `concurrency` (32): the round's questions are asked and their pages loaded first (untimed), then all its POSTs
 * are sent at once, each timed on its own. Fixed counts, whatever the machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { type DemoProcess, startDemoProcess } from '../examples/demo/demo-process.js';
import { fullGc, seconds } from './bench-kit.js';

/** The p-th percentile of sorted samples. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Settings for the demo processes: one client makes hundreds of elicitations (each a page GET and POST from
 * 127.0.0.1) within seconds, far above the demo's default abuse limits.
 */
export const DEMO_LIMITS_ENV = {
  ELICITATION_THROTTLE_LIMIT: '1000000',
  ELICITATION_CREATE_PER_MINUTE: '1000000',
};

/** How many answers are posted at once: the "at 32 concurrent answers" of the latency rows (#46). */
export const CROSS_INSTANCE_CONCURRENCY = 32;

export interface CrossInstanceOptions {
  /** The demo processes' environment: the store, its settings and one encryptionKey for both. */
  env: Record<string, string>;
  /** Measured elicitations, after `warmup` unmeasured ones. */
  n: number;
  warmup: number;
  /** Answers posted at once, in rounds (the last round of `n` or `warmup` may be smaller). @default CROSS_INSTANCE_CONCURRENCY */
  concurrency?: number;
  /** Called after each step (the caller's watchdog). */
  progress: () => void;
  /**
   * Optional: starts a reader of the store's events that calls `seen(elicitationId, performance.now())` when a
   * "completed" event is read, to split each latency there; returns its stop.
   */
  breakdown?: (seen: (elicitationId: string, at: number) => void) => () => void;
}

/**
 * The page's answer form, as a browser submits it: the `<form method="post">` without an `action` (it posts to the
 * page itself). Other forms on the page ("Need more time?" posts to its own action) are not part of the answer:
 * taking their hidden fields too sent two `_csrf` values, and the post was refused.
 */
export function answerForm(html: string): string {
  for (const [form] of html.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/gi)) {
    const open = /^<form\b[^>]*>/i.exec(form)?.[0] ?? '';
    if (/\bmethod\s*=\s*["']?post/i.test(open) && !/\baction\s*=/i.test(open)) return form;
  }
  throw new Error(`the page has no answer form (a <form method="post"> without an action): ${html.slice(0, 300)}`);
}

/** name/value of the hidden inputs of a form (HTML entities of the values decoded). */
export function hiddenFields(html: string): Array<[string, string]> {
  const attr = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  const decode = (v: string) =>
    v.replace(/&(#x[0-9a-f]+|#\d+|amp|quot|lt|gt|apos);/gi, (_, e: string) => {
      const named: Record<string, string> = { amp: '&', quot: '"', lt: '<', gt: '>', apos: "'" };
      if (e[0] !== '#') return named[e.toLowerCase()];
      return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    });
  const fields: Array<[string, string]> = [];
  for (const [tag] of html.matchAll(/<input\b[^>]*>/gi)) {
    const type = attr(tag, 'type');
    const name = attr(tag, 'name');
    if (!type || !name || (type[2] ?? type[3] ?? type[4]).toLowerCase() !== 'hidden') continue;
    const value = attr(tag, 'value');
    fields.push([decode(name[2] ?? name[3] ?? name[4]), decode(value ? (value[2] ?? value[3] ?? value[4]) : '')]);
  }
  return fields;
}

export interface Latency {
  samples: number[];
  p50: number;
  p99: number;
  max: number;
  /**
   * CPU time per measured answer while the answers ran, in milliseconds: instance B (the page post, its store calls
   * and the event's append) and instance A (the event read, opened and sent as a notification). Undefined where
   * /proc does not tell (not Linux).
   */
  cpuPerAnswer?: { a: number; b: number };
}

/** CPU time of process `pid`, every thread, in nanoseconds (Linux `/proc/<pid>/task/<tid>/schedstat`); undefined elsewhere. */
function cpuNs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined; // no /proc, or a thread that ended while read
  }
}

export async function measureCrossInstance({
  env,
  n,
  warmup,
  progress,
  breakdown,
  concurrency = CROSS_INSTANCE_CONCURRENCY,
}: CrossInstanceOptions): Promise<Latency> {
  const processes: DemoProcess[] = [];
  let client: Client | undefined;
  let transport: StreamableHTTPClientTransport | undefined;
  let stopBreakdown = (): void => undefined;
  try {
    const started = await Promise.allSettled([startDemoProcess(env), startDemoProcess(env)]);
    for (const s of started) if (s.status === 'fulfilled') processes.push(s.value);
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    const [a, b] = processes;
    console.log(`  instance A ${a.url}, instance B ${b.url}`);

    /** elicitationId → called with performance.now() when its "completed" event is read (breakdown only). */
    const published = new Map<string, (at: number) => void>();
    if (breakdown) stopBreakdown = breakdown((elicitationId, at) => published.get(elicitationId)?.(at));
    const split: Array<[number, number]> = [];

    client = new Client({ name: 'bench-client', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    /** elicitationId → called with performance.now() when its notification arrives. */
    const waiters = new Map<string, (at: number) => void>();
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, ({ params }) => {
      const at = performance.now();
      waiters.get(params.elicitationId)?.(at);
    });
    // Completion notifications travel on the standalone GET SSE stream: wait until it is open (the server
    // files the stream before it answers the GET), however long that takes on this machine.
    let sseOpened!: (res: Response) => void;
    const sseOpen = new Promise<void>((resolve, reject) => {
      sseOpened = (res) => (res.ok ? resolve() : reject(new Error(`the SSE GET of ${a.mcpUrl} answered ${res.status}`)));
    });
    transport = new StreamableHTTPClientTransport(new URL(a.mcpUrl), {
      requestInit: { headers: { Authorization: 'Bearer alice' } },
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        if (init?.method === 'GET') sseOpened(res);
        return res;
      },
    });
    await client.connect(transport);
    await sseOpen;

    /** Asks question `i` on A and loads its page on B (untimed); resolves the timed answer, to be started later. */
    const prepare = async (i: number): Promise<() => Promise<number>> => {
      const service = `bench${i}`;
      const error = await client!.callTool({ name: 'connect-service', arguments: { service } }).then(
        (r) => new Error(`connect-service ${service} did not ask for the key: ${JSON.stringify(r)}`),
        (e: unknown) => e,
      );
      if (!(error instanceof UrlElicitationRequiredError)) throw error;
      const { elicitationId } = error.elicitations[0];
      // The browser's page load: the answer form's hidden fields and the cookies (a CSRF token, when the pages
      // use one) go into the POST like a browser would send them.
      const pageUrl = `${b.url}/elicit/${elicitationId}/api-key`;
      const page = await fetch(pageUrl, { headers: { Cookie: 'demo_user=alice' } });
      const html = await page.text();
      if (page.status !== 200) throw new Error(`GET ${pageUrl} answered ${page.status}: ${html.slice(0, 300)}`);
      const form = new URLSearchParams(hiddenFields(answerForm(html)));
      form.set('apiKey', 'k');
      form.set('action', 'submit');
      const cookies = ['demo_user=alice', ...page.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
      const body = form.toString();
      return () => answer(elicitationId, pageUrl, cookies, body);
    };

    /** Posts one prepared answer on B: milliseconds from just before the POST to the notification on A. */
    const answer = async (elicitationId: string, pageUrl: string, cookies: string, body: string): Promise<number> => {
      let timer: NodeJS.Timeout | undefined;
      const notified = new Promise<number>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no completion notification for ${elicitationId} within 5 s`)), 5_000);
        waiters.set(elicitationId, resolve);
      });
      const publishedAt = breakdown ? new Promise<number>((resolve) => published.set(elicitationId, resolve)) : undefined;
      // ---- timed span: from just before the POST is sent to the notification at the client
      const t0 = performance.now();
      const post = fetch(pageUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookies },
        body,
      });
      post.catch(() => undefined); // awaited below; never an unhandled rejection if the notification fails first
      let t1: number;
      try {
        t1 = await notified;
      } finally {
        clearTimeout(timer);
        waiters.delete(elicitationId);
      }
      // ---- end of the timed span
      const res = await post;
      const text = await res.text();
      if (res.status !== 200) throw new Error(`POST ${pageUrl} answered ${res.status}: ${text.slice(0, 300)}`);
      if (publishedAt) {
        const tp = await publishedAt;
        published.delete(elicitationId);
        split.push([tp - t0, t1 - tp]);
      }
      return t1 - t0;
    };

    /** CPU of A and B (ns) spent while the measured answers ran: NaN once a read failed. */
    const cpu = { a: 0, b: 0 };
    /**
     * Elicitations `from` to `to - 1` in rounds of `concurrency`: each round asked and loaded, then answered at once
     * (with `countCpu`, the instances' CPU counted over the answers only).
     */
    const rounds = async (from: number, to: number, countCpu: boolean): Promise<number[]> => {
      const samples: number[] = [];
      for (let lo = from; lo < to; lo += concurrency) {
        const hi = Math.min(to, lo + concurrency);
        const answers = await Promise.all(Array.from({ length: hi - lo }, (_, k) => prepare(lo + k)));
        const [a0, b0] = [cpuNs(a.child.pid), cpuNs(b.child.pid)];
        samples.push(...(await Promise.all(answers.map((post) => post()))));
        if (countCpu) {
          cpu.a += (cpuNs(a.child.pid) ?? NaN) - (a0 ?? NaN);
          cpu.b += (cpuNs(b.child.pid) ?? NaN) - (b0 ?? NaN);
        }
        progress();
      }
      return samples;
    };

    const warmStart = process.hrtime.bigint();
    await rounds(0, warmup, false);
    console.log(`  warm-up: ${warmup} elicitations in ${seconds(warmStart).toFixed(1)}s`);
    fullGc();
    const start = process.hrtime.bigint();
    const samples = await rounds(warmup, warmup + n, true);
    const sorted = [...samples].sort((x, y) => x - y);
    const result: Latency = { samples, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
    if (Number.isFinite(cpu.a + cpu.b)) result.cpuPerAnswer = { a: cpu.a / 1e6 / n, b: cpu.b / 1e6 / n };
    const thirds = [0, 1, 2].map((k) => {
      const part = samples.slice(Math.floor((k * n) / 3), Math.floor(((k + 1) * n) / 3)).sort((x, y) => x - y);
      return `p50 ${percentile(part, 50).toFixed(2)} / p99 ${percentile(part, 99).toFixed(2)}`;
    });
    console.log(
      `  ${n} elicitations, ${concurrency} answers at once, in ${seconds(start).toFixed(1)}s: POST on B → notification on A ` +
        `p50 ${result.p50.toFixed(2)} ms, p90 ${percentile(sorted, 90).toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
        `max ${result.max.toFixed(2)} ms; by thirds: ${thirds.join(', ')} ms`,
    );
    if (result.cpuPerAnswer) {
      console.log(
        `  CPU per answer while the answers ran: instance B (page post) ${result.cpuPerAnswer.b.toFixed(3)} ms, ` +
          `instance A (event → notification) ${result.cpuPerAnswer.a.toFixed(3)} ms`,
      );
    }
    console.log(
      `  slowest 10: ${sorted
        .slice(-10)
        .map((v) => v.toFixed(1))
        .join(', ')} ms`,
    );
    if (breakdown) {
      const measured = split.slice(warmup);
      for (const [k, label] of [
        [0, 'POST sent → event read (B)'],
        [1, 'event read → notification (A + client)'],
      ] as const) {
        const part = measured.map((x) => x[k]).sort((x, y) => x - y);
        console.log(
          `  breakdown ${label}: p50 ${percentile(part, 50).toFixed(2)} ms, p90 ${percentile(part, 90).toFixed(2)} ms, ` +
            `p99 ${percentile(part, 99).toFixed(2)} ms, max ${part[part.length - 1].toFixed(2)} ms`,
        );
      }
    }
    return result;
  } finally {
    stopBreakdown();
    await transport?.terminateSession().catch(() => undefined);
    await client?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.stop()));
  }
}
