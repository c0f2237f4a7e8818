import type { PostgresQueries } from './postgres.bounded.js';
import type { AuditLink, ElicitationAuditChainStore } from '../stores/audit-chain-store.js';

/**
 * The audit chains of the PostgreSQL store (`ElicitationAuditChainStore`): a row per line in `audit_links`, keyed by
 * stream and seq. An append is one statement: inserted only when it is the stream's first line or follows a line
 * kept, and the primary key refuses a seq taken (so of two appends of one seq one wins). Nothing expires.
 */
export class PostgresAuditChain implements ElicitationAuditChainStore {
  constructor(
    private readonly pool: PostgresQueries,
    private readonly t: (object: string) => string,
  ) {}

  async lastAuditLink(stream: string): Promise<AuditLink | undefined> {
    const { rows } = await this.pool.query<{ seq: string; line: string }>(
      `SELECT seq, line FROM ${this.t('audit_links')} WHERE stream = $1 ORDER BY seq DESC LIMIT 1`,
      [stream],
    );
    return rows[0] && { stream, seq: Number(rows[0].seq), line: rows[0].line };
  }

  async appendAuditLink(link: AuditLink): Promise<boolean> {
    if (!Number.isSafeInteger(link.seq) || link.seq < 1) return false;
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.t('audit_links')} (stream, seq, line)
       SELECT $1::text, $2::bigint, $3::text
       WHERE $2::bigint = 1 OR EXISTS (SELECT 1 FROM ${this.t('audit_links')} WHERE stream = $1::text AND seq = $2::bigint - 1)
       ON CONFLICT (stream, seq) DO NOTHING`,
      [link.stream, link.seq, link.line],
    );
    return rowCount === 1;
  }

  async readAuditLinks(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]> {
    const count = Math.floor(limit);
    if (count <= 0) return [];
    const { rows } = await this.pool.query<{ seq: string; line: string }>(
      `SELECT seq, line FROM ${this.t('audit_links')} WHERE stream = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
      [stream, Math.max(1, Math.floor(fromSeq)), count],
    );
    return rows.map((row) => ({ stream, seq: Number(row.seq), line: row.line }));
  }
}
