import type { ElicitationService } from '../../lifecycle/elicitation.service.js';
import type { ElicitationRecords } from '../../lifecycle/elicitation-records.js';
import type { ElicitationRecord } from '../../core/elicitation.types.js';
import { typeOfAsk } from '../../lifecycle/create-input.validation.js';
import type { CallQuestions } from '../questions/call-questions.js';
import type { CompletionNotifications } from '../completion-notifications.js';
import type { LinkedQuestions } from '../questions/linked-questions.js';
import type { SdkRequestExtra, SdkServerLike } from '../sdk/sdk.types.js';
import type { UrlElicitationAsk, UrlElicitationRequest } from '../tool-elicitation.js';

/** What the pages of a 2025-11-25 call need. */
export interface PushPagesDeps {
  service: Pick<ElicitationService, 'createUrlElicitation' | 'list'>;
  records: Pick<ElicitationRecords, 'urlFor'>;
  /** Pairs a created elicitation with this session, for the completion notification. */
  notifications: Pick<CompletionNotifications, 'track' | 'tracks'>;
  linked: Pick<LinkedQuestions, 'urlOf'>;
  /** The call's questions (its user, and pages keyed for the link rung). */
  questions: Pick<CallQuestions, 'userId' | 'createPage'>;
  /** The call's session server. */
  server: SdkServerLike;
  /** The call's `extra` (its `sessionId`). */
  extra: Pick<SdkRequestExtra, 'sessionId'>;
}

/**
 * The hosted pages a push call (protocol 2025-11-25) asks on, each created for the call's session and paired
 * with it for the completion notification when URL mode shows it: a new page, the page an earlier call of the
 * tool asked on, or the page this session already shows for the same question.
 */
export class PushPages {
  constructor(private readonly deps: PushPagesDeps) {}

  /** A page for this call's user and session (no `askKey`), paired with the session. */
  async create(ask: UrlElicitationAsk): Promise<UrlElicitationRequest> {
    const { fallback: _ladder, ...rest } = ask;
    const userId = this.deps.questions.userId;
    const created = await this.deps.service.createUrlElicitation({ ...rest, userId, session: this.deps.extra.sessionId });
    this.track(created.elicitationId);
    return { ...created, message: ask.message };
  }

  /** A page for this question: keyed for the link rung, and paired with the session when URL mode shows it. */
  async createKeyed(ask: UrlElicitationAsk, position: number, digest: string, track: boolean): Promise<UrlElicitationRequest> {
    const created = await this.deps.questions.createPage(ask, position, digest, { session: this.deps.extra.sessionId });
    if (track) this.track(created.elicitationId);
    return { ...created, message: ask.message };
  }

  /** The page of an earlier call's question, asked again with `message`. */
  ofEarlier(earlier: ElicitationRecord, message: string): UrlElicitationRequest {
    return { elicitationId: earlier.id, url: this.deps.linked.urlOf(earlier), expiresAt: new Date(earlier.expiresAt), message };
  }

  /** A retry before the user answered shows the same page again rather than a new one (this session's, same type). */
  async reopen(ask: UrlElicitationAsk): Promise<UrlElicitationRequest | undefined> {
    const service = this.deps.service;
    const type = typeOfAsk(ask);
    const pending = (await service.list({ userId: this.deps.questions.userId, status: 'pending' }))
      .reverse()
      .find((p) => p.type === type && p.kind === ask.kind && this.deps.notifications.tracks(p.elicitationId, this.deps.server));
    return (
      pending && {
        elicitationId: pending.elicitationId,
        url: this.deps.records.urlFor(pending.elicitationId, pending.kind),
        expiresAt: new Date(pending.expiresAt),
        message: ask.message,
      }
    );
  }

  /** Pairs a page with this session, for the completion notification. */
  track(elicitationId: string): void {
    this.deps.notifications.track(this.deps.server, elicitationId);
  }
}
