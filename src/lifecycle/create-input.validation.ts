import { planApproval, type ApprovalAction, type ApprovalInput } from './approval-plan.js';
import { attachPresence, type PagePresence } from './passkey-action.js';
import { DEFAULT_LIMITS, MAX_TIMER_MS } from '../options/elicitation.constants.js';
import { newUuid } from '../core/elicitation-id.js';
import type { ElicitationLifecycleOptions } from '../options/lifecycle-options.js';
import { ELICITATION_KINDS, isElicitationKind, type ElicitationKind } from '../core/elicitation-kinds.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { asFormDefinition, type FormDefinition } from '../forms/define-form.js';
import type { FormSchema } from '../forms/form-schema.js';
import type { ZodFormSchema } from '../forms/zod-form.js';
import { rememberHostedChecks } from '../forms/zod-hosted-checks.js';
import { isScopeList, oauthGrantType } from '../options/oauth-options.js';
import { assertSafeExternalUrl } from '../security/url-policy.js';
import { normaliseAccept, type UploadSettings } from '../uploads/file-accept.js';

/** Largest hosted-form schema, as JSON, in bytes (kept apart from the metadata cap). */
const MAX_FORM_SCHEMA_BYTES = 32 * 1024;
/** Longest `message`, in characters. */
const MAX_MESSAGE_LENGTH = 2000;
/** Longest `type`, in characters. */
const MAX_TYPE_LENGTH = 200;
/** Longest confirm-page metadata string, in characters. */
const MAX_CONFIRM_TEXT_LENGTH = 500;
/** Metadata keys the confirm page reads, all optional strings. */
const CONFIRM_METADATA_KEYS = ['title', 'warning', 'confirmLabel', 'cancelLabel'] as const;

/** Arguments of `createUrlElicitation`. */
export interface CreateUrlElicitationInput {
  /**
   * Which page collects the answer: `api-key` (a secret), `confirm` (yes/no), `form` (a hosted form), `oauth`
   * (connect an account at `provider`: the answer is the grant, kept sealed in the token vault), `file` (a file
   * upload, `accept` and `maxBytes`: the answer is `{ name, type, size, sha256 }` with `content` (base64) or, with the
   * `uploadSink` option, `ref`), or `external`:
   * our page checks the browser user, then sends them on to `url`; your callback route completes the elicitation
   * with `complete(id, data)`.
   */
  kind: ElicitationKind;
  /**
   * For `kind: 'oauth'`: the provider's name in the `oauth.providers` option. The elicitation's `type` is
   * `oauth:<provider>` (a `type` given must be that).
   */
  provider?: string;
  /** For `kind: 'oauth'`: scopes to ask for beyond the provider's own `scopes`. */
  scopes?: string[];
  /**
   * For `kind: 'file'`: the types the page accepts, MIME types or `type/*` (e.g. `['application/pdf', 'image/*']`),
   * matched against the type found from the file's magic bytes (never its name or the browser's claim). `text/plain`
   * (or `text/*`) lets in UTF-8 text, which has no magic bytes. @default any type `file-type` recognises (no plain text)
   */
  accept?: string[];
  /** For `kind: 'file'`: the largest file, in bytes, at most `limits.maxUploadBytes`. @default `limits.maxUploadBytes` */
  maxBytes?: number;
  /** For `kind: 'external'`: the third-party URL, checked against the `externalUrlPolicy` (UnsafeUrlError). */
  url?: string;
  /**
   * For `kind: 'form'`: the form the hosted page renders and validates (`defineForm`/`formFromClass`, or a Zod
   * object or a raw schema, declared here). The completed answer is the validated content. A Zod form's
   * refinements are checked by the page of the process that created the elicitation (see "Form mode").
   */
  form?: FormDefinition<unknown> | ZodFormSchema<unknown> | FormSchema;
  /**
   * For `kind: 'approval'`: the approvers (each gets a confirm page of their own), the quorum, the rejections that
   * deny it, the action approved (its hash binds the approval). The answer is `{ approved: true, approvedBy, hash }`;
   * a rejection declines it. `ToolElicitation.requestApproval` fills it from the call.
   */
  approval?: ApprovalInput;
  /**
   * For `kind: 'confirm'`: `passkey` asks the user to confirm with a passkey as well (a signature over this question,
   * its action and the decision; a user without one is sent to add one first). An approval asks it of its approvers
   * with `approval.presence`. @default `click`
   */
  presence?: PagePresence;
  /**
   * With `presence: 'passkey'`: the action the signature binds (its hash), shown on the page. `ToolElicitation` fills it
   * with the call's tool and arguments. @default what the page says (its message and settings)
   */
  action?: ApprovalAction;
  /** Why you ask, shown on the page. Plain text (rendered escaped), at most 2000 characters. */
  message: string;
  /** The verified user the elicitation is for; only this user may answer it. */
  userId: string;
  /** What the answer is for, for `findByUserAndType`, e.g. `api-key-github`. @default the kind */
  type?: string;
  /**
   * Page settings and your own data (never secrets), at most `limits.maxMetadataBytes` as JSON. The confirm
   * page reads `title`, `warning`, `confirmLabel` and `cancelLabel`; `secretFields: string[]` names answer
   * fields that are secrets (never shown again on a page). Every answer is encrypted at rest.
   */
  metadata?: Record<string, unknown>;
  /** Lifetime of this elicitation in milliseconds. @default the module's `ttlMs` */
  ttlMs?: number;
  /** The MCP session that asks, kept for routing the completion notification. Never put in the URL. */
  session?: string;
  /**
   * The tool question asking (see `ElicitationRecord.askKey`).
   * @internal set by the MCP binding
   */
  askKey?: string;
  /**
   * The MCP task that asks (see `ElicitationRecord.taskId`): the page's outcome moves it on.
   * @internal set by the MCP binding
   */
  taskId?: string;
}

/** What the creation checks read of the lifecycle's slice of the options. */
export type CreateInputOptions = Pick<ElicitationLifecycleOptions, 'ttlMs' | 'retentionMs' | 'limits'>;

/** What the kind-specific checks read of the lifecycle's slice of the options. */
export type KindDataOptions = Pick<ElicitationLifecycleOptions, 'externalUrlPolicy' | 'oauth'> &
  Partial<Pick<ElicitationLifecycleOptions, 'limits'>>;

/**
 * Checks the caller's arguments (throwing `ElicitationInputError` naming the field) and builds the pending
 * record with a fresh id. The kind-specific data is checked and attached by `attachKindData`.
 */
export function buildPendingRecord(input: CreateUrlElicitationInput, options: CreateInputOptions, now: number): ElicitationRecord {
  if (!input || typeof input !== 'object') throw new ElicitationInputError('input', 'must be an object');
  const { kind, message, userId, metadata = {}, session, askKey, taskId } = input;
  if (!isElicitationKind(kind)) throw new ElicitationInputError('kind', `must be one of ${ELICITATION_KINDS.join(', ')}`);
  const type = typeOfAsk(input);
  if (typeof message !== 'string' || !message.trim() || message.length > MAX_MESSAGE_LENGTH) {
    throw new ElicitationInputError('message', `must be a non-empty string of at most ${MAX_MESSAGE_LENGTH} characters`);
  }
  if (typeof userId !== 'string' || !userId) {
    throw new ElicitationInputError('userId', 'must be the non-empty id of the verified user the elicitation is for');
  }
  if (typeof type !== 'string' || !type || type.length > MAX_TYPE_LENGTH) {
    throw new ElicitationInputError('type', `must be a non-empty string of at most ${MAX_TYPE_LENGTH} characters`);
  }
  checkMetadata(kind, metadata, options.limits.maxMetadataBytes);
  if (session !== undefined && (typeof session !== 'string' || !session)) {
    throw new ElicitationInputError('session', 'must be the MCP session id string');
  }
  checkOptionalKey('askKey', askKey);
  checkOptionalKey('taskId', taskId);
  const ttlMs = input.ttlMs ?? options.ttlMs;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TIMER_MS) {
    throw new ElicitationInputError('ttlMs', 'must be a positive whole number of milliseconds');
  }
  const expiresAt = now + ttlMs;
  const id = newUuid();
  return {
    id,
    kind,
    userId,
    type,
    message,
    metadata: { ...metadata },
    status: 'pending',
    createdAt: now,
    expiresAt,
    purgeAt: expiresAt + options.retentionMs,
    sessionId: session,
    askKey,
    taskId,
  };
}

/** The type an ask's answer is kept under: its `type`, else `oauth:<provider>` for `oauth`, else its kind. */
export function typeOfAsk(input: Pick<CreateUrlElicitationInput, 'kind' | 'type' | 'provider'>): string {
  if (input.type !== undefined) return input.type;
  return input.kind === 'oauth' && typeof input.provider === 'string' ? oauthGrantType(input.provider) : input.kind;
}

/** An optional key the MCP binding sets (`askKey`, `taskId`): absent, or a non-empty string of at most MAX_TYPE_LENGTH. */
function checkOptionalKey(field: 'askKey' | 'taskId', value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || !value || value.length > MAX_TYPE_LENGTH)) {
    throw new ElicitationInputError(field, `must be a non-empty string of at most ${MAX_TYPE_LENGTH} characters`);
  }
}

/** `metadata`: a plain, JSON-serialisable object within `limits.maxMetadataBytes`, with well-typed page keys. */
function checkMetadata(kind: ElicitationKind, metadata: unknown, maxMetadataBytes: number): asserts metadata is Record<string, unknown> {
  if (!isPlainObject(metadata)) throw new ElicitationInputError('metadata', 'must be a plain object');
  let metadataJson: string;
  try {
    metadataJson = JSON.stringify(metadata);
  } catch {
    throw new ElicitationInputError('metadata', 'must be JSON-serialisable');
  }
  if (Buffer.byteLength(metadataJson) > maxMetadataBytes) {
    throw new ElicitationInputError('metadata', `is larger than limits.maxMetadataBytes (${maxMetadataBytes} bytes)`);
  }
  const { secretFields } = metadata;
  if (secretFields !== undefined && (!Array.isArray(secretFields) || secretFields.some((f) => typeof f !== 'string'))) {
    throw new ElicitationInputError('metadata.secretFields', 'must be an array of field names');
  }
  if (kind !== 'confirm') return;
  for (const key of CONFIRM_METADATA_KEYS) {
    const value = metadata[key];
    if (value !== undefined && (typeof value !== 'string' || value.length > MAX_CONFIRM_TEXT_LENGTH)) {
      throw new ElicitationInputError(`metadata.${key}`, `must be a string of at most ${MAX_CONFIRM_TEXT_LENGTH} characters`);
    }
  }
}

/**
 * What only some kinds carry: checks that `url` comes with (and only with) `external` and `form` with (and
 * only with) `form`, then attaches the external target (checked against `externalUrlPolicy`) or the hosted
 * form's schema (or a file page's `accept` and `maxBytes`) to the record's metadata. Returns a promise only for `external` (the policy may look the host
 * up), so the other kinds cost their caller no await.
 */
export function attachKindData(
  record: ElicitationRecord,
  input: CreateUrlElicitationInput,
  options: KindDataOptions,
): Promise<void> | undefined {
  if ((input.url !== undefined) !== (record.kind === 'external')) {
    throw new ElicitationInputError('url', record.kind === 'external' ? 'is required for kind "external"' : 'is only for kind "external"');
  }
  if ((input.form !== undefined) !== (record.kind === 'form')) {
    throw new ElicitationInputError('form', record.kind === 'form' ? 'is required for kind "form"' : 'is only for kind "form"');
  }
  if ((input.approval !== undefined) !== (record.kind === 'approval')) {
    throw new ElicitationInputError(
      'approval',
      record.kind === 'approval' ? 'is required for kind "approval"' : 'is only for kind "approval"',
    );
  }
  if (record.kind === 'approval') record.metadata.approval = { ...planApproval(input.approval, record.userId), requester: record.userId };
  attachPresence(record, input.presence, input.action);
  if ((input.provider !== undefined || input.scopes !== undefined) && record.kind !== 'oauth') {
    throw new ElicitationInputError(input.provider !== undefined ? 'provider' : 'scopes', 'is only for kind "oauth"');
  }
  if ((input.accept !== undefined || input.maxBytes !== undefined) && record.kind !== 'file') {
    throw new ElicitationInputError(input.accept !== undefined ? 'accept' : 'maxBytes', 'is only for kind "file"');
  }
  if (record.kind === 'file') attachUploadSettings(record, input, options.limits?.maxUploadBytes ?? DEFAULT_LIMITS.maxUploadBytes);
  if (record.kind === 'external') {
    if (typeof input.url !== 'string') throw new ElicitationInputError('url', 'must be a URL string');
    return attachTargetUrl(record, input.url, options.externalUrlPolicy);
  }
  if (record.kind === 'oauth') attachOAuthAsk(record, input, options.oauth);
  if (record.kind === 'form') {
    const form = asFormDefinition(input.form!);
    if (Buffer.byteLength(JSON.stringify(form.schema)) > MAX_FORM_SCHEMA_BYTES) {
      throw new ElicitationInputError('form', `has a schema larger than ${MAX_FORM_SCHEMA_BYTES} bytes`);
    }
    record.metadata.form = {
      schema: form.schema,
      secretFields: [...form.secretFields],
      // Kept beside the schema (the wire has no word for it), so every instance's page checks it.
      ...(form.httpUrlFields.length > 0 ? { httpUrlFields: [...form.httpUrlFields] } : {}),
    };
    // Kept for as long as the page may live: "Need more time?" can move its expiry to twice its lifetime.
    rememberHostedChecks(record.id, form, record.createdAt + 2 * (record.expiresAt - record.createdAt));
  }
  return undefined;
}

/**
 * An `oauth` elicitation's provider (one of `oauth.providers`) and scopes (the provider's, then the ask's), in
 * its metadata; its type must be the provider's grant type, where the token vault looks grants up.
 */
function attachOAuthAsk(record: ElicitationRecord, input: CreateUrlElicitationInput, oauth: KindDataOptions['oauth']): void {
  const provider = typeof input.provider === 'string' ? oauth?.providers.get(input.provider) : undefined;
  if (!provider) {
    const known = oauth ? [...oauth.providers.keys()].join(', ') : '';
    throw new ElicitationInputError(
      'provider',
      known ? `must be one of the oauth.providers (${known})` : 'needs the module option oauth.providers',
    );
  }
  if (input.scopes !== undefined && !isScopeList(input.scopes)) {
    throw new ElicitationInputError('scopes', 'must be an array of at most 50 scope names (no spaces)');
  }
  if (record.type !== oauthGrantType(provider.name)) {
    throw new ElicitationInputError('type', `must be "${oauthGrantType(provider.name)}" (or left out) for kind "oauth"`);
  }
  const scopes = [...new Set([...provider.scopes, ...(input.scopes ?? [])])];
  record.metadata.provider = provider.name;
  record.metadata.scopes = scopes;
}

/** A `file` elicitation's accepted types (normalised; none: any `file-type` recognises) and largest size, in its metadata. */
function attachUploadSettings(record: ElicitationRecord, input: CreateUrlElicitationInput, maxUploadBytes: number): void {
  let accept: string[] | null = null;
  if (input.accept !== undefined) {
    const checked = normaliseAccept(input.accept);
    if (!checked.ok) throw new ElicitationInputError('accept', checked.reason);
    accept = checked.value;
  }
  const maxBytes = input.maxBytes ?? maxUploadBytes;
  if (typeof maxBytes !== 'number' || !Number.isInteger(maxBytes) || maxBytes <= 0 || maxBytes > maxUploadBytes) {
    throw new ElicitationInputError('maxBytes', `must be a positive whole number of bytes up to limits.maxUploadBytes (${maxUploadBytes})`);
  }
  const upload: UploadSettings = { accept, maxBytes };
  record.metadata.upload = upload;
}

/** An external elicitation's target, once the URL policy passed it (a DNS lookup may be on the way). */
async function attachTargetUrl(
  record: ElicitationRecord,
  url: string,
  externalUrlPolicy: ElicitationLifecycleOptions['externalUrlPolicy'],
): Promise<void> {
  record.metadata.targetUrl = (await assertSafeExternalUrl(url, externalUrlPolicy)).href;
}

/** True for `{}`-literals and `Object.create(null)` objects only (no arrays, class instances or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
