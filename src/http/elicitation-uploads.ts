import { ConflictException, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { UploadBudget, type UploadBudgetUsage, type UploadLease } from '../uploads/upload-budget.js';
import { pageError, withPageHeading } from './exceptions/page-text.js';
import type { PageResponse } from './page-http.js';

/** The `Retry-After` of a file post refused because the upload budget is spent, in seconds. */
export const UPLOAD_RETRY_AFTER_S = 5;

/**
 * The file pages' uploads in this module (one instance per module, provided with its mounted routes): one upload in
 * flight per elicitation, and `limits.uploadBufferBytes` for the bytes all of them may hold in memory
 * (`uploads/upload-budget.ts`). The file controller asks once the page checks passed, before a byte of the file is
 * kept; a refused post is answered at once (409, or 503 with `Retry-After`) while the rest of its body is read and
 * dropped, and nothing is stored.
 */
@Injectable()
export class ElicitationUploads {
  private readonly budget: UploadBudget;

  constructor(@InjectPageOptions() options: ElicitationPageOptions) {
    this.budget = new UploadBudget(options.limits.uploadBufferBytes);
  }

  /**
   * Admits an upload to elicitation `id` that may keep up to `bytes` in memory: its lease, to release when the
   * request is done. Throws the page's 409 when another upload to `id` is in flight, or its 503 (with `Retry-After`
   * on `res`) when `bytes` more would pass the budget.
   */
  admit(id: string, bytes: number, res: PageResponse): UploadLease {
    const admitted = this.budget.admit(id, bytes);
    if (admitted.ok) return admitted.lease;
    if (admitted.reason === 'busy') {
      throw withPageHeading(
        pageError(ConflictException, (m) => m.file.busy),
        (m) => m.headings.uploadInProgress,
      );
    }
    res.header('Retry-After', String(UPLOAD_RETRY_AFTER_S));
    throw pageError(ServiceUnavailableException, (m) => m.file.serverBusy(UPLOAD_RETRY_AFTER_S));
  }

  /** What the budget holds now and the most it held (read by tests and operators). */
  usage(): UploadBudgetUsage {
    return this.budget.usage();
  }
}
