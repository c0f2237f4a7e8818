/**
 * What a file page (`kind: 'file'`) accepts: the `accept` list of `createUrlElicitation` (MIME types, or `type/*`),
 * checked and normalised at creation, matched against the type found from a file's magic bytes. A leaf: it imports
 * nothing of the module.
 */

/** Most entries an `accept` list may have. */
export const MAX_ACCEPT_ENTRIES = 20;

/** One MIME type or `type/*` (RFC 6838 names, lower case once normalised; no parameters, no `*∕*`). */
const MIME_ENTRY = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** The upload settings a `file` record keeps in its metadata (`metadata.upload`). */
export interface UploadSettings {
  /** Normalised MIME types and `type/*`; `null`: any type `file-type` recognises. */
  accept: string[] | null;
  /** Largest file, in bytes. */
  maxBytes: number;
}

/**
 * `accept` as given to `createUrlElicitation`, normalised (lower case, repeats dropped), or the reason it is
 * refused (for `ElicitationInputError`).
 */
export function normaliseAccept(accept: unknown): { ok: true; value: string[] } | { ok: false; reason: string } {
  const reason = `must be a non-empty array of at most ${MAX_ACCEPT_ENTRIES} MIME types or "type/*" (e.g. ["application/pdf", "image/*"])`;
  if (!Array.isArray(accept) || accept.length === 0 || accept.length > MAX_ACCEPT_ENTRIES) return { ok: false, reason };
  const value: string[] = [];
  for (const entry of accept as unknown[]) {
    if (typeof entry !== 'string') return { ok: false, reason };
    const lower = entry.trim().toLowerCase();
    if (!MIME_ENTRY.test(lower)) return { ok: false, reason };
    if (!value.includes(lower)) value.push(lower);
  }
  return { ok: true, value };
}

/** True when `type` (a detected MIME type) is one `accept` lists, exactly or by `type/*`; any type when `accept` is null. */
export function acceptsType(accept: readonly string[] | null, type: string): boolean {
  if (accept === null) return true;
  const lower = type.toLowerCase();
  const major = lower.slice(0, lower.indexOf('/') + 1);
  return accept.some((entry) => entry === lower || (entry.endsWith('/*') && major !== '' && entry === `${major}*`));
}

/** True when `accept` lets plain text in (`text/plain` or `text/*`), which has no magic bytes to find. */
export function acceptsPlainText(accept: readonly string[] | null): boolean {
  return accept !== null && acceptsType(accept, 'text/plain');
}

/**
 * True when `content` reads as plain text: valid UTF-8 without control characters other than tab, line feed,
 * form feed and carriage return (so no binary format passes for text).
 */
export function isPlainText(content: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex -- looking for control characters is the point
  return !/[\u0000-\u0008\u000B\u000E-\u001F\u007F]/.test(text);
}

/** The accepted types for people: `image/*` → "image", `application/pdf` → "PDF", anything longer as it is. */
export function describeAccept(accept: readonly string[]): string {
  return accept
    .map((entry) => {
      const [major, minor] = entry.split('/');
      if (minor === '*') return major;
      return /^[a-z0-9]{1,5}$/.test(minor) ? minor.toUpperCase() : entry;
    })
    .join(', ');
}

/** The file input's `accept` attribute: the list as it is (browsers take MIME types and `type/*`). */
export function acceptAttribute(accept: readonly string[] | null): string | null {
  return accept === null ? null : accept.join(',');
}

/** The upload settings of a `file` record, read back from its metadata (checked at creation). */
export function uploadSettingsOf(metadata: Record<string, unknown>): UploadSettings {
  const upload = metadata.upload as Partial<UploadSettings> | undefined;
  return {
    accept: Array.isArray(upload?.accept) ? upload.accept.filter((e): e is string => typeof e === 'string') : null,
    maxBytes: typeof upload?.maxBytes === 'number' ? upload.maxBytes : 0,
  };
}
