import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { idOf, parseElicitationId } from '../core/elicitation-id.js';
import type { ElicitationRecord, FinalStatus } from '../core/elicitation.types.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import { receiptIn, type PasskeyReceipt } from '../proofs/decision-proof.js';
import { APPROVAL_PAGE_PREFIX, approvalOfPage, approvalPlanOf, decisionPresence } from './approval-plan.js';
import { ElicitationAnswers } from './elicitation-answers.js';
import type { CreateUrlElicitationInput } from './create-input.validation.js';
import { ElicitationTransitions } from './elicitation-transitions.js';

/** One approver's decision, as an approval's tally lists it. */
export interface ApprovalDecision {
  userId: string;
  decision: 'approved' | 'rejected';
  /** When it was made, epoch milliseconds. */
  at: number;
  /** `passkey` for an approver asked to sign (`presence`), `click` for the others. */
  presence: 'passkey' | 'click';
  /**
   * The signed approval's receipt (`ElicitationService.getApproval`; `verifyReceipt` checks it): absent for a click, a
   * rejection, and an approver's page answered by the service.
   */
  receipt?: PasskeyReceipt;
}

/** Where an approval stands: the decisions so far (oldest first) and who has not decided. */
export interface ApprovalTally {
  quorum: number;
  rejectionsToDeny: number;
  decisions: ApprovalDecision[];
  waiting: string[];
  /** The action's hash (`approval.action`), when it has one. */
  hash?: string;
}

/** What a completed approval's answer holds. */
export interface ApprovalAnswer {
  approved: true;
  approvedBy: string[];
  hash?: string;
}

/**
 * Approvals by a quorum (`kind: 'approval'`, `requestApproval`): one record for the decision, the requester's, and a
 * confirm page per approver (`type` and `askKey` `approval:<id>`), each identity-bound to its approver. Every decision
 * is a page's own exactly-once transition; after each one made here, the tally is read from the pages and the
 * approval moved once (also exactly once): `rejectionsToDeny` rejections decline it (a rejection wins a tie), `quorum`
 * approvals complete it, and its pages still open are cancelled. An instance that died between a page's decision and
 * the approval's move is made good by the next read of the approval (`settle`). Silence never approves: an approval
 * nobody finished expires with its pages.
 */
@Injectable()
export class ElicitationApprovals implements OnModuleDestroy {
  private readonly logger = new Logger('ElicitationApprovals');
  private readonly stopListening: () => void;
  private readonly pagesOf: (userId: string, askKey: string, now: number) => Promise<ElicitationRecord[]>;

  constructor(
    @Inject(ELICITATION_OBSERVED_STORE) store: ElicitationStore,
    private readonly transitions: ElicitationTransitions,
    private readonly answers: ElicitationAnswers,
  ) {
    this.pagesOf = store.findByAskKey
      ? store.findByAskKey.bind(store)
      : async (userId, askKey, now) => (await store.listByUser(userId, now)).filter((r) => r.askKey === askKey).reverse();
    this.stopListening = transitions.onMovedHere((status, record) => this.movedHere(status, record));
  }

  onModuleDestroy(): void {
    this.stopListening();
  }

  /**
   * Opens a confirm page for each approver of a new approval (`create`: the lifecycle's own creation, with its
   * checks and quotas); when one cannot be opened, the approval and the pages opened so far are cancelled and the
   * error thrown.
   */
  async openPages(approval: ElicitationRecord, create: (input: CreateUrlElicitationInput) => Promise<unknown>): Promise<void> {
    const plan = approvalPlanOf(approval)!;
    const key = `${APPROVAL_PAGE_PREFIX}${approval.id}`;
    try {
      for (const approver of plan.approvers) {
        await create({
          kind: 'confirm',
          userId: approver,
          message: approval.message,
          type: key,
          askKey: key,
          ttlMs: pageLifetime(approval.expiresAt - Date.now()),
          metadata: { approval: plan },
          ...(plan.passkey?.includes(approver) && { presence: 'passkey' as const }),
        });
      }
    } catch (error) {
      await this.transitions.finish(idOf(approval), 'cancelled');
      await this.closePages(approval);
      throw error;
    }
  }

  /** The approval's tally: each approver's decision (their page's outcome), oldest first, and who has not decided. */
  async tally(approval: ElicitationRecord, { receipts = false }: { receipts?: boolean } = {}): Promise<ApprovalTally> {
    const plan = approvalPlanOf(approval)!;
    const now = Date.now();
    const pages = await Promise.all(plan.approvers.map((a) => this.pagesOf(a, `${APPROVAL_PAGE_PREFIX}${approval.id}`, now)));
    const decisions: ApprovalDecision[] = [];
    const waiting: string[] = [];
    plan.approvers.forEach((userId, i) => {
      const page = pages[i][0];
      if (page?.status === 'completed' || page?.status === 'declined') {
        const receipt = receipts && page.status === 'completed' ? this.receiptOf(page) : undefined;
        const decision = page.status === 'completed' ? 'approved' : 'rejected';
        decisions.push({ userId, decision, at: page.finishedAt ?? now, ...decisionPresence(plan, userId, receipt) });
      } else if (!page || page.status === 'pending') waiting.push(userId);
    });
    decisions.sort((a, b) => a.at - b.at);
    const { quorum, rejectionsToDeny, hash } = plan;
    return { quorum, rejectionsToDeny, decisions, waiting, ...(hash !== undefined && { hash }) };
  }

  /**
   * Moves a pending approval on from its pages' decisions (a rejection count reached declines it, else a quorum
   * completes it); nothing when it is still short of both. Resolves the approval as it stands.
   */
  async settle(approval: ElicitationRecord): Promise<ElicitationRecord> {
    if (approval.kind !== 'approval' || approval.status !== 'pending') return approval;
    const tally = await this.tally(approval);
    const { approved: approvedBy, rejected } = approvalProgressOf(tally);
    const rejections = rejected.length;
    const id = idOf(approval);
    let moved;
    if (rejections >= tally.rejectionsToDeny) moved = await this.transitions.finish(id, 'declined');
    else if (approvedBy.length >= tally.quorum) {
      const answer: ApprovalAnswer = { approved: true, approvedBy, ...(tally.hash !== undefined && { hash: tally.hash }) };
      moved = await this.transitions.finish(id, 'completed', { json: JSON.stringify(answer) });
    }
    return moved && 'record' in moved ? moved.record : approval;
  }

  /** The receipt an approver's signed page keeps in its answer; none when it holds none or this ring cannot open it. */
  private receiptOf(page: ElicitationRecord): PasskeyReceipt | undefined {
    try {
      return receiptIn(this.answers.reveal(page));
    } catch {
      return undefined;
    }
  }

  /** A transition made here: an approver's decision moves its approval on; a finished approval closes its pages. */
  private movedHere(status: FinalStatus, record: Readonly<ElicitationRecord>): void {
    const approvalId = approvalOfPage(record.type);
    if (approvalId !== undefined && (status === 'completed' || status === 'declined')) {
      void this.settleById(approvalId).catch((error: unknown) =>
        this.logger.warn(`Approval ${approvalId} could not be moved on: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    if (record.kind === 'approval') {
      void this.closePages(record).catch((error: unknown) =>
        this.logger.warn(
          `The pages of approval ${record.id} could not be closed: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
  }

  private async settleById(id: string): Promise<void> {
    const checked = parseElicitationId(id);
    const approval = checked === undefined ? undefined : await this.transitions.current(checked);
    if (approval) await this.settle(approval);
  }

  /** Cancels the approval's pages still open (it was decided, cancelled or expired). */
  private async closePages(approval: Readonly<ElicitationRecord>): Promise<void> {
    const plan = approvalPlanOf(approval);
    if (!plan) return;
    const now = Date.now();
    for (const approver of plan.approvers) {
      for (const page of await this.pagesOf(approver, `${APPROVAL_PAGE_PREFIX}${approval.id}`, now)) {
        if (page.status === 'pending') await this.transitions.finish(idOf(page), 'cancelled');
      }
    }
  }
}

/**
 * An approver's page's lifetime, given the approval's `remaining` milliseconds: it ends a little before the approval
 * (a tenth, at most a second), never after it, so no decision comes in that the approval could no longer take.
 */
function pageLifetime(remaining: number): number {
  return Math.max(1, Math.floor(remaining - Math.min(1_000, remaining / 10)));
}

/** Who approved and who rejected so far, in the order they decided. */
export function approvalProgressOf(tally: ApprovalTally): { approved: string[]; rejected: string[] } {
  return {
    approved: tally.decisions.filter((d) => d.decision === 'approved').map((d) => d.userId),
    rejected: tally.decisions.filter((d) => d.decision === 'rejected').map((d) => d.userId),
  };
}

/** "1 of 2 approvals: alice approved; waiting for bob or carol": where an approval stands, for the requester's client. */
export function approvalProgress(tally: ApprovalTally): string {
  const { approved, rejected } = approvalProgressOf(tally);
  const head = `${approved.length} of ${tally.quorum} approval${tally.quorum === 1 ? '' : 's'}`;
  const said = [
    ...(approved.length > 0 ? [`${approved.join(', ')} approved`] : []),
    ...(rejected.length > 0 ? [`${rejected.join(', ')} rejected`] : []),
    ...(tally.waiting.length > 0 ? [`waiting for ${tally.waiting.join(' or ')}`] : []),
  ];
  return said.length > 0 ? `${head}: ${said.join('; ')}` : head;
}
