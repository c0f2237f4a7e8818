import type { TestElicitRequest, TestToolResult } from './elicitation-test-client.types.js';

/** JSON-RPC code of the 2025-11-25 "URL elicitation required" error. */
const URL_ELICITATION_REQUIRED = -32042;
/**
 * A page URL of the module, under any route prefix: `…/<uuid>/<page>`. Global: every match of a text.
 */
const PAGE_URL =
  /https?:\/\/[^\s"'<>()[\]]+?\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/(?:api-key|confirm|form|oauth|file|external)(?![\w-])/gi;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Every page URL in a text, in order. */
function pageUrlsIn(text: string): string[] {
  return [...text.matchAll(PAGE_URL)].map((match) => match[0]);
}

/**
 * What a client saw, and the waits on it. `sightings` holds every URL sighting (repeats included), so that
 * `waitForUrl` notices a page shown again; `urls` drops consecutive repeats.
 */
export class TestClientRecorder {
  readonly urls: string[] = [];
  readonly requests: TestElicitRequest[] = [];
  readonly completions: string[] = [];
  private readonly sightings: string[] = [];
  /** The sightings count when the latest call began. */
  private callMark = 0;
  private readonly waits = new Set<{ done: () => boolean; settle: () => void; fail: (error: Error) => void }>();
  private stopped: Error | undefined;

  markCall(): void {
    this.callMark = this.sightings.length;
  }

  recordRequest(request: TestElicitRequest): void {
    this.requests.push(request);
    if (request.mode === 'url') {
      if (request.url !== undefined) this.sawUrl(request.url);
    } else {
      // A form question may carry a page (the form-bridge fallback for clients with form mode only).
      for (const url of pageUrlsIn(request.message)) this.sawUrl(url);
    }
  }

  recordCompletion(elicitationId: string): void {
    this.completions.push(elicitationId);
    this.check();
  }

  /** -32042: `error.data.elicitations[].url`. */
  recordErrorUrls(error: unknown): void {
    if (!isRecord(error) || error.code !== URL_ELICITATION_REQUIRED || !isRecord(error.data)) return;
    const { elicitations } = error.data;
    if (!Array.isArray(elicitations)) return;
    for (const elicitation of elicitations) {
      if (isRecord(elicitation) && typeof elicitation.url === 'string') this.sawUrl(elicitation.url);
    }
  }

  /** A result pointing at a page (clients without elicitation get one): text and links, structured, `_meta`. */
  recordResultUrls(result: TestToolResult): void {
    const found: string[] = [];
    for (const block of result.content) {
      if (typeof block.text === 'string') found.push(...pageUrlsIn(block.text));
      if (typeof block.uri === 'string') found.push(...pageUrlsIn(block.uri));
    }
    if (typeof result.structuredContent?.url === 'string') found.push(result.structuredContent.url);
    if (result._meta) {
      if (typeof result._meta.url === 'string') found.push(result._meta.url);
      for (const entry of Object.values(result._meta)) {
        if (isRecord(entry) && typeof entry.url === 'string') found.push(entry.url);
      }
    }
    for (const url of found) this.sawUrl(url);
  }

  waitForUrl(ms: number): Promise<string> {
    const mark = this.callMark;
    return this.wait(
      () => this.sightings.length > mark,
      ms,
      `no page URL within ${ms} ms`,
      () => this.sightings[mark],
    );
  }

  waitForCompletion(id: string, ms: number): Promise<void> {
    return this.wait(
      () => this.completions.includes(id),
      ms,
      `no completion notification for ${id} within ${ms} ms`,
      () => undefined,
    );
  }

  /** Rejects every pending wait, and every later one. */
  stop(reason: Error): void {
    this.stopped = reason;
    for (const wait of this.waits) wait.fail(reason);
  }

  private sawUrl(url: string): void {
    this.sightings.push(url);
    if (this.urls.at(-1) !== url) this.urls.push(url);
    this.check();
  }

  private check(): void {
    for (const wait of this.waits) if (wait.done()) wait.settle();
  }

  private wait<T>(done: () => boolean, ms: number, timeoutMessage: string, value: () => T): Promise<T> {
    if (done()) return Promise.resolve(value());
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise<T>((resolve, reject) => {
      const entry = {
        done,
        settle: () => {
          this.waits.delete(entry);
          clearTimeout(timer);
          resolve(value());
        },
        fail: (error: Error) => {
          this.waits.delete(entry);
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => entry.fail(new Error(timeoutMessage)), ms);
      this.waits.add(entry);
    });
  }
}
