import { Injectable, Logger } from '@nestjs/common';
import { InjectOperationsOptions, type ElicitationOperationsOptions } from '../options/operations-options.js';
import type { ElicitationAuditRecord, ElicitationAuditSink } from '../options/audit-record.js';
import { currentRequest } from './request-context.js';

/** The context name of the `'log'` sink's lines. */
export const AUDIT_LOGGER_CONTEXT = 'ElicitationAudit';

/** What a caller gives for a record: the rest (time, outcome, the request's address and agent) is filled in here. */
export type AuditEntry = Omit<ElicitationAuditRecord, 'time' | 'outcome'> & { outcome?: ElicitationAuditRecord['outcome'] };

/**
 * The audit log: one structured record per security-relevant event, handed to the `audit` option's sink. Off by
 * default (`audit: false`), then every call here returns at once. Each record is built from named fields only,
 * so nothing else of a record, a request or an answer can reach a sink.
 * @internal
 */
@Injectable()
export class ElicitationAudit {
  private readonly logger = new Logger(AUDIT_LOGGER_CONTEXT);
  private readonly sink: ElicitationAuditSink | undefined;

  constructor(@InjectOperationsOptions() options: Pick<ElicitationOperationsOptions, 'audit'>) {
    const audit = options.audit;
    this.sink = audit === 'log' ? (record) => this.logger.log(JSON.stringify(record)) : audit || undefined;
  }

  /** Whether records go anywhere (callers skip building one otherwise). */
  get enabled(): boolean {
    return this.sink !== undefined;
  }

  /** Records one event; the client's address and agent come from the page request being served, if any. */
  record(entry: AuditEntry): void {
    if (this.sink) this.deliver(this.build(entry));
  }

  /** The record of one event, built from its named fields (as `record` builds it), whether or not a sink is set. */
  build(entry: AuditEntry): ElicitationAuditRecord {
    const request = entry.ip === undefined && entry.userAgent === undefined ? currentRequest() : undefined;
    return {
      time: new Date().toISOString(),
      event: entry.event,
      outcome: entry.outcome ?? (entry.event.endsWith('.refused') ? 'failure' : 'success'),
      ...(entry.elicitationId !== undefined && { elicitationId: entry.elicitationId }),
      ...(entry.kind !== undefined && { kind: entry.kind }),
      ...(entry.userId !== undefined && { userId: entry.userId }),
      ...((entry.ip ?? request?.ip) !== undefined && { ip: entry.ip ?? request?.ip }),
      ...((entry.userAgent ?? request?.userAgent) !== undefined && { userAgent: entry.userAgent ?? request?.userAgent }),
      ...(entry.reason !== undefined && { reason: entry.reason }),
      ...(entry.status !== undefined && { status: entry.status }),
      ...(entry.decision !== undefined && { decision: entry.decision }),
      ...(entry.via !== undefined && { via: entry.via }),
      ...(entry.actionHash !== undefined && { actionHash: entry.actionHash }),
      ...(entry.presence !== undefined && { presence: entry.presence }),
      ...(entry.receipt !== undefined && { receipt: entry.receipt }),
      ...(entry.approvedBy !== undefined && { approvedBy: entry.approvedBy }),
    };
  }

  /** Hands a built record to the sink, if any (a sink that throws or rejects is logged). */
  deliver(record: ElicitationAuditRecord): void {
    const sink = this.sink;
    if (!sink) return;
    try {
      const done = sink(Object.freeze(record));
      if (done instanceof Promise) done.catch((error: unknown) => this.failed(record, error));
    } catch (error) {
      this.failed(record, error);
    }
  }

  private failed(record: ElicitationAuditRecord, error: unknown): void {
    this.logger.error(`The audit sink failed on "${record.event}": ${error instanceof Error ? error.message : String(error)}`);
  }
}
