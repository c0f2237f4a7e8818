/**
 * One link of an audit chain: the `seq`-th line of `stream`. The line (JSON text, opaque to the store) carries the hash
 * of the line before it, so a line changed, left out or put in between breaks the chain where it happened.
 */
export interface AuditLink {
  stream: string;
  /** 1 for a stream's first line, then each line the one before's plus one. */
  seq: number;
  line: string;
}

/**
 * The audit-chain half of a store (optional): append-only streams of lines, each appended only as its stream's next, so
 * that of two instances appending at once one wins and the other reads the new last line and links to it.
 */
export interface ElicitationAuditChainStore {
  /** The last link of `stream`, or `undefined` for a stream with none. */
  lastAuditLink(stream: string): Promise<AuditLink | undefined>;
  /**
   * Appends `link` when it is its stream's next (`seq` the last link's plus one, 1 on an empty stream), in one atomic
   * step; `false` (nothing written) when that `seq` is taken.
   */
  appendAuditLink(link: AuditLink): Promise<boolean>;
  /** Up to `limit` links of `stream` from `fromSeq` on, in order. */
  readAuditLinks(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]>;
}
