import { askedByOf, type AskedBy } from '../core/asked-by.js';
import type { ElicitationKind, ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import { isAfterCursor, openCursorOf, readOpenCursor, type OpenPage, type OpenPageRequest } from '../stores/notice-store.js';
import { pageUrl, type PageUrlOptions } from './page-urls.js';

/** Open questions on a page when `listOpen` is not told how many. */
export const DEFAULT_OPEN_QUESTIONS_LIMIT = 20;
/** The most open questions one page may hold (the store contract's bound). */
export const MAX_OPEN_QUESTIONS_LIMIT = 100;
/** The longest cursor `listOpen` passes on (a store's own `next` is far shorter). */
const MAX_CURSOR_LENGTH = 512;

/** Which page of a user's open questions `ElicitationService.listOpen` reads. */
export interface OpenQuestionsRequest {
  /** Questions on the page, at most: 1 to 100. @default 20 */
  limit?: number;
  /** The `next` of the page before (opaque); absent for the first page, the newest questions. */
  after?: string;
}

/** One open question of a user: what the inbox shows of it. Never the answer, nor metadata beyond `askedBy`. */
export interface OpenQuestion {
  elicitationId: string;
  kind: ElicitationKind;
  /** The question, as the tool asked it. */
  message: string;
  /** Its page, where the user answers it. */
  url: string;
  /** When it was asked. */
  createdAt: Date;
  /** When it expires unanswered. */
  expiresAt: Date;
  /** The MCP task waiting for the answer, when a task asked. */
  taskId?: string;
  /** The tool and client that asked, where the MCP binding recorded them. */
  askedBy?: AskedBy;
}

/** A page of a user's open questions, newest first. */
export interface OpenQuestionsPage {
  questions: OpenQuestion[];
  /** Pass it as `after` for the next page (older questions); absent on the last page. */
  next?: string;
}

/**
 * A user's open questions (pending, not expired), newest first, a page at a time: one store query per page, the
 * store's `listOpen` where it has one, else its `listByUser` filtered and paged here with the same order and cursor
 * (`openCursorOf`). Chosen once, at construction.
 */
export class OpenQuestions {
  private readonly read: (userId: string, now: number, page: OpenPageRequest) => Promise<OpenPage>;

  constructor(
    store: ElicitationStore,
    private readonly urls: PageUrlOptions,
  ) {
    this.read = store.listOpen
      ? store.listOpen.bind(store)
      : async (userId, now, page) => pageOf(await store.listByUser(userId, now), now, page);
  }

  /** A page of `userId`'s open questions; throws `ElicitationInputError` for a bad `userId`, `limit` or `after`. */
  async list(userId: string, page: OpenQuestionsRequest = {}): Promise<OpenQuestionsPage> {
    if (typeof userId !== 'string' || userId === '') throw new ElicitationInputError('userId', 'must be a non-empty string');
    const request = checkedRequest(page);
    const { records, next } = await this.read(userId, Date.now(), request);
    return { questions: records.map((record) => this.questionOf(record)), ...(next !== undefined && { next }) };
  }

  private questionOf(record: ElicitationRecord): OpenQuestion {
    const askedBy = askedByOf(record.metadata);
    return {
      elicitationId: record.id,
      kind: record.kind,
      message: record.message,
      url: pageUrl(this.urls, record.id, record.kind),
      createdAt: new Date(record.createdAt),
      expiresAt: new Date(record.expiresAt),
      ...(record.taskId !== undefined && { taskId: record.taskId }),
      ...(askedBy && { askedBy }),
    };
  }
}

/** `page` with its default limit, checked: a limit of 1 to 100, a cursor that is a short string. */
function checkedRequest(page: OpenQuestionsRequest): OpenPageRequest {
  const { limit = DEFAULT_OPEN_QUESTIONS_LIMIT, after } = page ?? {};
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_OPEN_QUESTIONS_LIMIT) {
    const shown = typeof limit === 'number' ? String(limit) : typeof limit;
    throw new ElicitationInputError('limit', `must be a whole number from 1 to ${MAX_OPEN_QUESTIONS_LIMIT} (got ${shown})`);
  }
  if (after !== undefined && (typeof after !== 'string' || after.length > MAX_CURSOR_LENGTH)) {
    throw new ElicitationInputError('after', `must be the "next" of an earlier page (a string of at most ${MAX_CURSOR_LENGTH} characters)`);
  }
  return after === undefined || after === '' ? { limit } : { limit, after };
}

/**
 * One page of `records` (a user's, as `listByUser` returns them) as `listOpen` pages them: pending and not expired at
 * `now`, newest first (by `createdAt`, then id, both descending), after the cursor, at most `limit`.
 */
function pageOf(records: readonly ElicitationRecord[], now: number, { limit, after }: OpenPageRequest): OpenPage {
  const cursor = readOpenCursor(after);
  const open = records
    .filter((r) => r.status === 'pending' && r.expiresAt > now && isAfterCursor(r, cursor))
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const shown = open.slice(0, limit);
  return { records: shown, ...(open.length > limit && { next: openCursorOf(shown[shown.length - 1]) }) };
}
