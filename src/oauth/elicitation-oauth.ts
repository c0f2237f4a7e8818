import { Injectable } from '@nestjs/common';
import type { OAuthToken } from '../options/oauth-options.js';
import { OAuthGrants } from './oauth-grants.js';

/**
 * The accounts users connected through `kind: 'oauth'` elicitations (see "Connecting accounts (OAuth)" in the
 * README): a valid access token for a tool to call the provider with, and disconnecting. Exported by
 * `ElicitationModule` beside `ElicitationService`; the token vault behind it is the module's own.
 */
@Injectable()
export class ElicitationOAuth {
  constructor(private readonly grants: OAuthGrants) {}

  /**
   * A valid access token of `userId`'s account at `provider` (one of the `oauth.providers`), from the token vault:
   * refreshed first when it expires within `oauth.refreshBeforeMs` (once across instances: a rotating refresh
   * token is spent once), `undefined` when the user has not connected the account, or revoked it, or the
   * provider refused the refresh (the grant is then forgotten, and the next `requireAnswer` asks again). Throws
   * `ElicitationOAuthError` when the provider cannot be reached for a refresh (the grant stays), and
   * `ElicitationInputError` for an unknown provider. Never gives the refresh token.
   */
  async getToken(userId: string, provider: string): Promise<OAuthToken | undefined> {
    return (await this.grants.token(userId, provider))?.token;
  }

  /**
   * Disconnects `userId`'s account at `provider`: revokes the grant at the provider when it has a revocation
   * endpoint (a failure there is logged), then forgets every grant kept for it. Resolves whether there was one.
   */
  revoke(userId: string, provider: string): Promise<boolean> {
    return this.grants.revoke(userId, provider);
  }
}
