import { Inject, Injectable } from '@nestjs/common';
import type { ElicitationData, ElicitationKind, ElicitationOutcome, ElicitationRecord, FinalStatus } from '../core/elicitation.types.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { AnswerBox } from '../security/answer-box.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import type { CreateUrlElicitationInput } from './create-input.validation.js';

/** A completed answer as the store keeps it (`ElicitationRecord.data`): JSON text, sealed or as is. */
export type KeptAnswer = { $sealed: string } | { $json: string };

/** What a `requireAnswer` asks for, as far as finding a kept answer goes. */
export type AskForKept = Pick<CreateUrlElicitationInput, 'kind' | 'type' | 'provider'>;

/** An answer a `requireAnswer` takes without asking, with the id of the record that keeps it. */
export interface KeptAnswerFound {
  elicitationId: string;
  data: ElicitationData;
}

/**
 * The answers of a kind whose feature keeps them itself, above the lifecycle (the OAuth vault: `oauth`). The
 * feature hands its keeper over once, at construction (`ElicitationAnswers.keepKind`); the lifecycle never
 * imports it.
 */
export interface KindAnswerKeeper {
  /** What a tool sees of a completed record's answer: never what the feature keeps to itself (a refresh token). */
  reveal(record: ElicitationRecord): ElicitationData;
  /** The answer a `requireAnswer` takes without asking (`undefined`: ask), with its record's id. */
  kept(userId: string, ask: AskForKept): Promise<KeptAnswerFound | undefined>;
}

/**
 * Kinds whose answers only the feature that keeps them may open (an `oauth` grant holds a refresh token): without
 * that feature's keeper, the lifecycle refuses to open them rather than show a tool the whole grant.
 */
const KEPT_BY_THEIR_FEATURE: ReadonlySet<ElicitationKind> = new Set<ElicitationKind>(['oauth']);

/**
 * The answers at rest: sealed (AES-GCM, bound to the elicitation id) in a store that keeps them outside this
 * process, and in every store for a file; opened for the tool that reads them; for a kind whose feature keeps its
 * answers itself (`keepKind`), what that feature says a tool sees. Internal to the lifecycle and its features.
 */
@Injectable()
export class ElicitationAnswers {
  /**
   * Whether answers are sealed at rest: only in a store that keeps them outside this process
   * (`ElicitationStore.inProcess`); in this heap the key would lie next to them.
   */
  private readonly sealAnswers: boolean;
  private readonly keepers = new Map<ElicitationKind, KindAnswerKeeper>();

  /** @param box the box answers are sealed in, built by the module from the `encryptionKey` ring. */
  constructor(
    private readonly box: AnswerBox,
    @Inject(ELICITATION_OBSERVED_STORE) store: ElicitationStore,
  ) {
    this.sealAnswers = store.inProcess !== true;
  }

  /** Hands `kind`'s answers to the feature that keeps them (one keeper per kind). */
  keepKind(kind: ElicitationKind, keeper: KindAnswerKeeper): void {
    if (this.keepers.has(kind)) throw new Error(`The answers of kind '${kind}' have a keeper already`);
    this.keepers.set(kind, keeper);
  }

  /** The keeper of `kind`'s answers, when a feature keeps them itself. */
  keeperOf(kind: ElicitationKind): KindAnswerKeeper | undefined {
    return this.keepers.get(kind);
  }

  /**
   * An answer as the store keeps it: its JSON text, sealed (bound to its elicitation id) when the store keeps it
   * outside this process or `seal` asks for it. Every answer is sealed there, secret or not: that spares a read to
   * find out which.
   */
  keep(id: string, answerJson: string, seal = false): KeptAnswer {
    return seal || this.sealAnswers ? { $sealed: this.box.seal(answerJson, id) } : { $json: answerJson };
  }

  /** The outcome a tool sees, with the answer decrypted in process. */
  outcome<T extends ElicitationData>(record: ElicitationRecord): ElicitationOutcome<T> {
    if (record.status === 'completed') return { status: 'completed', data: this.reveal(record) as T };
    return { status: record.status as Exclude<FinalStatus, 'completed'> };
  }

  /**
   * A completed record's answer, a copy of its own for each caller, decrypted when it was sealed. Throws
   * `ElicitationKeyError` when it was sealed under a key this instance's `encryptionKey` ring lacks.
   */
  reveal(record: ElicitationRecord): ElicitationData {
    const keeper = this.keepers.get(record.kind);
    if (keeper) return keeper.reveal(record);
    if (KEPT_BY_THEIR_FEATURE.has(record.kind))
      throw new Error(`nestjs-mcp-elicitation: answers of kind '${record.kind}' are opened only by their feature, which is not set up`);
    const data = record.data ?? {};
    const { $json, $sealed } = data as Partial<Record<'$json' | '$sealed', unknown>>;
    if (typeof $json === 'string') return JSON.parse($json) as ElicitationData;
    return typeof $sealed === 'string' ? (JSON.parse(this.box.open($sealed, record.id)) as ElicitationData) : data;
  }

  /**
   * Throws `ElicitationKeyError` when this instance cannot open a record's sealed answer (it was sealed under a key
   * the ring lacks), before a read-once read would take it out of the store for nothing.
   */
  assertOpenable(record: ElicitationRecord): void {
    const sealed = (record.data as { $sealed?: unknown } | undefined)?.$sealed;
    if (typeof sealed === 'string') this.box.assertKnownKey(sealed);
  }
}
