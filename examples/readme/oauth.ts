import { Injectable, Module } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/server';
import { ElicitationModule, ElicitationOAuth, McpElicitation, type OAuthToken } from 'nestjs-mcp-elicitation';

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: 'https://mcp.example.com',
      encryptionKey: process.env.ELICITATION_ENCRYPTION_KEY!,
      resolvePageUser: (req: { user?: { id: string } }) => req.user?.id,
      oauth: {
        providers: {
          // OpenID Connect: endpoints and keys by discovery; the ID token is validated, its `sub` is the subject.
          google: {
            issuer: 'https://accounts.google.com',
            clientId: process.env.GOOGLE_CLIENT_ID!,
            clientSecret: process.env.GOOGLE_CLIENT_SECRET!,
            scopes: ['openid', 'email', 'https://www.googleapis.com/auth/calendar.readonly'],
            // Google issues a refresh token only when asked for offline access.
            authorizationParams: { access_type: 'offline', prompt: 'consent' },
            displayName: 'Google',
          },
          // Plain OAuth 2: the endpoints by hand; the subject is the user info's `sub`, `id` or `login`.
          github: {
            authorizationEndpoint: 'https://github.com/login/oauth/authorize',
            tokenEndpoint: 'https://github.com/login/oauth/access_token',
            userinfoEndpoint: 'https://api.github.com/user',
            clientId: process.env.GITHUB_CLIENT_ID!,
            clientSecret: process.env.GITHUB_CLIENT_SECRET!,
            scopes: ['read:user', 'repo'],
            displayName: 'GitHub',
          },
        },
      },
    }),
  ],
})
export class AppModule {}

@Injectable()
export class CalendarTools {
  constructor(
    private readonly elicitation: McpElicitation,
    private readonly oauth: ElicitationOAuth,
  ) {}

  register(server: McpServer) {
    this.elicitation.registerTool(server, 'next-meeting', { description: 'Your next meeting' }, async (_args, elicitation) => {
      // The kept grant (refreshed when due), or the oauth page: the user signs in at Google, and the call resumes.
      const token = await elicitation.requireAnswer<OAuthToken>({
        kind: 'oauth',
        provider: 'google',
        message: 'Connect your Google calendar.',
      });
      const response = await fetch('https://www.googleapis.com/calendar/v3/calendars/primary/events?maxResults=1', {
        headers: { Authorization: `Bearer ${token.accessToken}` },
      });
      const { items } = (await response.json()) as { items?: Array<{ summary?: string }> };
      // Never put the token in a result: the model and the client would see it.
      return { content: [{ type: 'text', text: items?.[0]?.summary ?? 'No meeting ahead' }] };
    });
  }

  /** Outside a tool call: a valid token, or undefined when the user has not connected (or revoked) the account. */
  githubToken(userId: string): Promise<OAuthToken | undefined> {
    return this.oauth.getToken(userId, 'github');
  }

  /** "Disconnect GitHub" in your settings page: revoked at GitHub when it can be, forgotten here. */
  disconnectGithub(userId: string): Promise<boolean> {
    return this.oauth.revoke(userId, 'github');
  }
}
