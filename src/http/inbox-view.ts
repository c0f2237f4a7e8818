import type { ElicitationKind } from '../core/elicitation.types.js';
import type { AskedBy } from '../core/asked-by.js';
import type { OpenQuestion, OpenQuestionsPage } from '../lifecycle/open-questions.js';
import { displayText } from '../security/display-text.js';
import { timeLeft, type PageTimes } from './page-times.js';

/** The longest tool or client name the inbox shows (longer ones end in "…"). */
const MAX_NAME_LENGTH = 80;

/** One open question as the inbox template shows it: every text made safe to show (`displayText`), times formatted. */
export interface InboxItemView {
  id: string;
  message: string;
  url: string;
  /** An approval the user asked for (its link says "see where it stands", not "answer"). */
  following: boolean;
  /** The tool that asked, or null when not known. */
  tool: string | null;
  /** The MCP client that made the call, or null when not known. */
  client: string | null;
  /** When it was asked: ISO 8601 (`<time datetime>`) and as date and time in UTC. */
  asked: { iso: string; absolute: string };
  /** When it expires: ISO 8601, the time left ("in 9 minutes") and the date and time in UTC. */
  expires: { iso: string; relative: string; absolute: string };
}

/** One open question in the inbox's JSON: `OpenQuestion` with its dates as ISO 8601 and its texts as a page shows them. */
export interface InboxQuestionJson {
  elicitationId: string;
  kind: ElicitationKind;
  message: string;
  url: string;
  createdAt: string;
  expiresAt: string;
  taskId?: string;
  askedBy?: AskedBy;
}

/** The inbox's JSON (`Accept: application/json`): a page of the user's open questions and where the next starts. */
export interface InboxJson {
  questions: InboxQuestionJson[];
  next?: string;
}

/** The names of `askedBy`, each on one line and capped, as a page shows them. */
function shownAskedBy(askedBy: AskedBy | undefined): { tool: string | null; client: string | null } {
  const shown = (name: string | undefined) => (name === undefined ? '' : displayText(name, 'line', MAX_NAME_LENGTH));
  return { tool: shown(askedBy?.tool) || null, client: shown(askedBy?.client) || null };
}

/** The questions of a page of the list as the template shows them, in `locale`, as they read at `now`. */
export function inboxItems(page: OpenQuestionsPage, times: PageTimes, locale: string, now = Date.now()): InboxItemView[] {
  return page.questions.map((question) => {
    const asked = question.createdAt.getTime();
    const expires = question.expiresAt.getTime();
    return {
      id: question.elicitationId,
      message: displayText(question.message),
      url: question.url,
      following: question.kind === 'approval',
      ...shownAskedBy(question.askedBy),
      asked: { iso: question.createdAt.toISOString(), absolute: times.absolute(asked, locale) },
      expires: {
        iso: question.expiresAt.toISOString(),
        relative: times.relative(timeLeft(expires - now), locale),
        absolute: times.absolute(expires, locale),
      },
    };
  });
}

/**
 * A page of the list as JSON: each question's message and names as the page shows them (cleaned by `displayText`,
 * so a script that shows them shows what the page does), dates as ISO 8601; never an answer, nor other metadata.
 */
export function inboxJson(page: OpenQuestionsPage): InboxJson {
  return {
    questions: page.questions.map((question: OpenQuestion) => {
      const { tool, client } = shownAskedBy(question.askedBy);
      const askedBy = { ...(tool !== null && { tool }), ...(client !== null && { client }) };
      return {
        elicitationId: question.elicitationId,
        kind: question.kind,
        message: displayText(question.message),
        url: question.url,
        createdAt: question.createdAt.toISOString(),
        expiresAt: question.expiresAt.toISOString(),
        ...(question.taskId !== undefined && { taskId: question.taskId }),
        ...((tool !== null || client !== null) && { askedBy }),
      };
    }),
    ...(page.next !== undefined && { next: page.next }),
  };
}

/** The q-value of `type` (`application/json`) by its most specific range: exact, then its type's wildcard, then any; else 0. */
function qualityOf(ranges: ReadonlyArray<{ range: string; q: number }>, type: string): number {
  const main = `${type.slice(0, type.indexOf('/'))}/*`;
  for (const candidate of [type, main, '*/*']) {
    const found = ranges.find((r) => r.range === candidate);
    if (found) return found.q;
  }
  return 0;
}

/**
 * Whether a request's `Accept` prefers JSON to HTML: `application/json` with a higher q-value than `text/html` (a
 * browser's navigation asks for HTML first; `fetch` with `Accept: application/json`, or an app's client, for JSON).
 * Without an `Accept`, or with the wildcard alone, the page.
 */
export function prefersJson(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (!header) return false;
  const ranges = header
    .split(',', 32)
    .map((part) => {
      const [range, ...params] = part.split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
      return { range: range.trim().toLowerCase(), q: q === undefined ? 1 : Number(q) };
    })
    .filter((r) => r.range !== '');
  const json = qualityOf(ranges, 'application/json');
  return json > 0 && json > qualityOf(ranges, 'text/html');
}
