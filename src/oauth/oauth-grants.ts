import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ElicitationId } from '../core/elicitation-id.js';
import type { ElicitationRecord, TransitionResult } from '../core/elicitation.types.js';
import { ElicitationOAuthError } from '../errors/elicitation-oauth.error.js';
import { ELICITATION_OBSERVED_STORE } from '../observability/observed-store.js';
import { AnswerBox } from '../security/answer-box.js';
import { ElicitationAnswers } from '../lifecycle/elicitation-answers.js';
import { ElicitationTransitions } from '../lifecycle/elicitation-transitions.js';
import type { ElicitationStore } from '../stores/elicitation-store.js';
import { InjectOAuthFeatureOptions, type ElicitationOAuthFeatureOptions } from '../options/oauth-feature-options.js';
import { oauthGrantType, type OAuthToken, type ResolvedOAuthOptions } from '../options/oauth-options.js';
import { describeFailure, providerUnreachable } from './oauth-failures.js';
import { OAuthProviders, type OAuthProvider } from './oauth-providers.js';

/** A grant as it is kept, sealed, as the answer of a completed `oauth` record. */
export interface OAuthGrant {
  provider: string;
  accessToken: string;
  refreshToken?: string;
  tokenType?: string;
  /** Epoch milliseconds. */
  expiresAt?: number;
  scopes: string[];
  subject?: string;
}

/** The token endpoint's answer, as `openid-client` gives it. */
interface TokenResponse {
  access_token: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
  expiresIn(): number | undefined;
}

/**
 * How long another caller waits for the instance that refreshes a grant before taking the grant over (that
 * instance stopped): longer than a refresh can take (`openid-client`'s timeout is 10 s).
 */
const REFRESH_WAIT_MS = 20_000;
/** The window of the counter that elects the one caller that refreshes a grant (Redis keeps it twice as long). */
const REFRESH_LOCK_MS = 60_000;
/** Metadata mark of a grant put back as it was after a refresh the provider could not answer. */
const REFRESH_FAILED = 'refreshFailed';
/** The lifetime of the short pending step a refreshed grant's record goes through. */
const GRANT_RECORD_TTL_MS = 60_000;

/**
 * The token vault: each user's grant per provider, kept as the sealed answer of a completed `oauth` record (type
 * `oauth:<provider>`) in the configured store, under `oauth.retentionMs`. Sealed in every store, the memory store
 * included: tokens outlive the question they answered.
 *
 * A refresh is single-flight per grant across instances: a counter in the store elects the caller that refreshes
 * (`refreshOnce`); the grant stays readable until the new one is stored, and everyone else waits for that one. So
 * a rotating refresh token is spent once. A refresh the provider refuses (`invalid_grant`: revoked, expired) leaves
 * the grant forgotten, and the next `requireAnswer` asks again; a provider that cannot be reached leaves it as it
 * was and fails with `ElicitationOAuthError`.
 *
 * It keeps the answers of `oauth` records for the lifecycle (`ElicitationAnswers.keepKind`): a tool sees the grant's
 * public part only, and `requireAnswer` of kind `oauth` takes a valid token of the vault without asking.
 */
@Injectable()
export class OAuthGrants {
  private readonly logger = new Logger('ElicitationOAuth');
  /** This process's refreshes in flight, by user and provider: callers here share one. */
  private readonly inFlight = new Map<string, Promise<OAuthTokenFound | undefined>>();

  constructor(
    @InjectOAuthFeatureOptions() private readonly options: ElicitationOAuthFeatureOptions,
    @Inject(ELICITATION_OBSERVED_STORE) private readonly store: ElicitationStore,
    private readonly providers: OAuthProviders,
    private readonly transitions: ElicitationTransitions,
    answers: ElicitationAnswers,
    /** The box the answers are sealed in (the lifecycle's), built by the module from the `encryptionKey` ring. */
    private readonly box: AnswerBox,
  ) {
    answers.keepKind('oauth', {
      // A grant: the tool's part only (never the refresh token).
      reveal: (record) => {
        const grant = this.open(record);
        return grant ? { ...OAuthGrants.view(grant) } : {};
      },
      kept: async (userId, ask) => {
        const found = await this.token(userId, String(ask.provider));
        return found && { elicitationId: found.recordId, data: { ...found.token } };
      },
    });
  }

  private get oauth(): ResolvedOAuthOptions {
    return this.options.oauth!;
  }

  /** The grant's public part. */
  static view(grant: OAuthGrant): OAuthToken {
    return {
      accessToken: grant.accessToken,
      expiresAt: grant.expiresAt,
      scopes: [...grant.scopes],
      subject: grant.subject,
    };
  }

  /** A grant from the token endpoint's answer; `before` is the grant a refresh replaces. */
  static grantOf(provider: string, tokens: TokenResponse, now: number, requested: readonly string[], before?: OAuthGrant): OAuthGrant {
    const expiresIn = tokens.expiresIn();
    return {
      provider,
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token ?? before?.refreshToken,
      tokenType: tokens.token_type,
      expiresAt: expiresIn === undefined ? undefined : now + expiresIn * 1000,
      scopes: tokens.scope !== undefined ? tokens.scope.split(' ').filter(Boolean) : [...(before?.scopes ?? requested)],
      subject: before?.subject,
    };
  }

  /**
   * Completes an `oauth` elicitation with the grant its callback obtained: sealed in every store (tokens outlive
   * the question), kept for `oauth.retentionMs`; the user's older grants at the provider are forgotten. Its
   * waiters and the result see the grant's public part only.
   */
  async connect(id: ElicitationId, grant: OAuthGrant): Promise<TransitionResult> {
    const view = OAuthGrants.view(grant);
    const kept = this.seal(id, grant);
    const result = await this.transitions.finish(id, 'completed', {
      json: JSON.stringify(view),
      kept,
      retentionMs: this.oauth.retentionMs,
    });
    if (result.ok) {
      result.record.data = { ...view };
      await this.forgetOlder(result.record.userId, grant.provider, id);
    }
    return result;
  }

  /** A grant kept as an answer: sealed, bound to its record's id. */
  seal(recordId: string, grant: OAuthGrant): { $sealed: string } {
    return { $sealed: this.box.seal(JSON.stringify(grant), recordId) };
  }

  /** The grant a completed `oauth` record keeps (undefined once consumed, or for anything else). */
  open(record: ElicitationRecord): OAuthGrant | undefined {
    const sealed = (record.data as { $sealed?: unknown } | undefined)?.$sealed;
    return typeof sealed === 'string' ? (JSON.parse(this.box.open(sealed, record.id)) as OAuthGrant) : undefined;
  }

  /**
   * A valid access token of `userId` at `provider`, refreshed first when it expires within `oauth.refreshBeforeMs`;
   * `undefined` when there is no grant (never given, revoked, refused at refresh, forgotten). The grant's record id
   * comes with it.
   */
  async token(userId: string, provider: string): Promise<OAuthTokenFound | undefined> {
    this.providers.settings(provider);
    const type = oauthGrantType(provider);
    const record = await this.store.findLatestCompleted(userId, type, Date.now());
    const grant = record && this.open(record);
    if (!record || !grant) return undefined;
    if (!this.due(grant)) return { recordId: record.id, token: OAuthGrants.view(grant) };
    if (grant.refreshToken === undefined) {
      // Nothing to refresh with: the token serves until it expires, then the grant is forgotten (asked again).
      if (grant.expiresAt! > Date.now()) return { recordId: record.id, token: OAuthGrants.view(grant) };
      await this.store.consume(record.id, Date.now());
      return undefined;
    }
    const key = `${userId}\n${provider}`;
    let refreshing = this.inFlight.get(key);
    if (!refreshing) {
      refreshing = this.refreshOnce(record, grant).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, refreshing);
    }
    return refreshing;
  }

  /**
   * Revokes the grant of `userId` at `provider` at the provider (when it has a revocation endpoint; the refresh
   * token, else the access token) and forgets every grant kept for them. Resolves whether there was one.
   */
  async revoke(userId: string, provider: string): Promise<boolean> {
    this.providers.settings(provider);
    const now = Date.now();
    const type = oauthGrantType(provider);
    const kept = (await this.store.listByUser(userId, now)).filter(
      (r) => r.kind === 'oauth' && r.type === type && r.status === 'completed' && r.consumedAt === undefined,
    );
    let revoked = false;
    for (const record of kept.reverse()) {
      const taken = await this.store.consume(record.id, now);
      const grant = taken && this.open(taken);
      if (!grant) continue;
      if (!revoked) await this.revokeAtProvider(provider, grant);
      revoked = true;
    }
    return revoked;
  }

  /** Forgets the grants of `userId` at `provider` older than the record `keep` (a new connection replaced them). */
  async forgetOlder(userId: string, provider: string, keep: string): Promise<void> {
    const now = Date.now();
    const type = oauthGrantType(provider);
    for (const record of await this.store.listByUser(userId, now)) {
      if (
        record.id !== keep &&
        record.kind === 'oauth' &&
        record.type === type &&
        record.status === 'completed' &&
        record.consumedAt === undefined
      ) {
        await this.store.consume(record.id, now);
      }
    }
  }

  /** Whether the access token expires within `refreshBeforeMs` (a grant without an expiry never does). */
  private due(grant: OAuthGrant): boolean {
    return grant.expiresAt !== undefined && grant.expiresAt - this.oauth.refreshBeforeMs <= Date.now();
  }

  /**
   * One refresh per grant across instances: a counter in the store, keyed by the grant's record and counted in
   * the window of its own finish time (so every caller counts in the same one), elects the caller that
   * refreshes; the others wait for what it stores. The grant stays in the store meanwhile, so a lookup during
   * the refresh finds it (and waits too) rather than finding nothing.
   */
  private async refreshOnce(record: ElicitationRecord, grant: OAuthGrant): Promise<OAuthTokenFound | undefined> {
    const { count } = await this.store.hit(`oauth-refresh:${record.id}`, REFRESH_LOCK_MS, record.finishedAt ?? record.createdAt);
    return count === 1 ? this.refresh(record, grant) : this.awaitRefreshed(record, grant);
  }

  /**
   * Refreshes `grant` (kept by `record`) at the provider. Refreshed: the new grant is stored, then the old one
   * forgotten. Refused (revoked, expired): forgotten. Not answered: put back as it was under a new record (marked,
   * so that callers waiting for this refresh fail too rather than take it for a refreshed one), and
   * `ElicitationOAuthError`. `taken`: the record is already out of the store.
   */
  private async refresh(record: ElicitationRecord, grant: OAuthGrant, taken = false): Promise<OAuthTokenFound | undefined> {
    const provider = grant.provider;
    const forget = async () => {
      if (!taken) await this.store.consume(record.id, Date.now());
    };
    let fresh: OAuthGrant;
    try {
      const { client, config, settings } = await this.providers.provider(provider);
      const tokens = await client.refreshTokenGrant(config, grant.refreshToken!);
      fresh = OAuthGrants.grantOf(provider, tokens, Date.now(), settings.scopes, grant);
    } catch (error) {
      if (!providerUnreachable(error)) {
        await forget();
        this.logger.log(`A ${provider} grant was refused at refresh (${describeFailure(error)}): forgotten, the user is asked again.`);
        return undefined;
      }
      await this.keep(record.userId, grant, { [REFRESH_FAILED]: true });
      await forget();
      throw new ElicitationOAuthError(provider, `the token endpoint could not refresh the access token (${describeFailure(error)})`);
    }
    const recordId = await this.keep(record.userId, fresh);
    await forget();
    return { recordId, token: OAuthGrants.view(fresh) };
  }

  /** Stores `grant` for `userId` as a new completed `oauth` record (with `marks` in its metadata); resolves its id. */
  private async keep(userId: string, grant: OAuthGrant, marks: Record<string, unknown> = {}): Promise<string> {
    const now = Date.now();
    const id = randomUUID();
    const settings = this.providers.settings(grant.provider);
    const record: ElicitationRecord = {
      id,
      kind: 'oauth',
      userId,
      type: oauthGrantType(grant.provider),
      message: `Connected ${settings.displayName} account`,
      metadata: { provider: grant.provider, scopes: [...grant.scopes], ...marks },
      status: 'pending',
      createdAt: now,
      expiresAt: now + GRANT_RECORD_TTL_MS,
      purgeAt: now + GRANT_RECORD_TTL_MS,
    };
    await this.store.create(record);
    const finished = await this.store.finish(id, {
      status: 'completed',
      data: this.seal(id, grant),
      now,
      purgeAt: now + this.oauth.retentionMs,
    });
    if (!finished.ok) throw new ElicitationOAuthError(grant.provider, 'the refreshed grant could not be stored');
    return id;
  }

  /**
   * Another caller refreshes `before` (keeping `grant`): the grant it stores once it appears; `undefined` when it
   * was forgotten (refused); `ElicitationOAuthError` when that caller could not reach the provider. A caller that
   * never finishes (its instance stopped) is taken over after `REFRESH_WAIT_MS`, through the store's `consume`.
   */
  private async awaitRefreshed(before: ElicitationRecord, grant: OAuthGrant): Promise<OAuthTokenFound | undefined> {
    const deadline = Date.now() + REFRESH_WAIT_MS;
    const since = before.finishedAt ?? before.createdAt;
    for (let pause = 20; Date.now() < deadline; pause = Math.min(pause * 2, 500)) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      const latest = await this.store.findLatestCompleted(before.userId, before.type, Date.now());
      if (latest?.id === before.id) continue;
      if (!latest || (latest.finishedAt ?? 0) < since) return undefined;
      const found = this.open(latest);
      if (!found) continue;
      if (latest.metadata[REFRESH_FAILED] === true) {
        throw new ElicitationOAuthError(grant.provider, 'the token endpoint could not refresh the access token (tried just now)');
      }
      return { recordId: latest.id, token: OAuthGrants.view(found) };
    }
    const taken = await this.store.consume(before.id, Date.now());
    if (taken) return this.refresh(before, grant, true);
    const latest = await this.store.findLatestCompleted(before.userId, before.type, Date.now());
    const found = latest && latest.id !== before.id ? this.open(latest) : undefined;
    return found && latest ? { recordId: latest.id, token: OAuthGrants.view(found) } : undefined;
  }

  /** Revocation at the provider, when it has an endpoint; a failure there is logged, and the grant forgotten anyway. */
  private async revokeAtProvider(name: string, grant: OAuthGrant): Promise<void> {
    let provider: OAuthProvider;
    try {
      provider = await this.providers.provider(name);
    } catch (error) {
      this.logger.warn(`Could not revoke a ${name} grant at the provider (${describeFailure(error)}); it is forgotten here.`);
      return;
    }
    if (provider.config.serverMetadata().revocation_endpoint === undefined) return;
    const token = grant.refreshToken ?? grant.accessToken;
    const hint = grant.refreshToken !== undefined ? 'refresh_token' : 'access_token';
    try {
      await provider.client.tokenRevocation(provider.config, token, { token_type_hint: hint });
    } catch (error) {
      this.logger.warn(`Could not revoke a ${name} grant at the provider (${describeFailure(error)}); it is forgotten here.`);
    }
  }
}

/** A token found in the vault, with the id of the record that keeps its grant. */
export interface OAuthTokenFound {
  recordId: string;
  token: OAuthToken;
}
