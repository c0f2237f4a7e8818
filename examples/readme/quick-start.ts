// src/github-keys.module.ts: a route that asks the user for their GitHub API key on a page.
import { Controller, Get, Injectable, Logger, Module, Req, UnauthorizedException } from '@nestjs/common';
import { ElicitationModule, ElicitationService } from 'nestjs-mcp-elicitation';

/** What your browser login puts on the request (Passport sets `req.user`). */
interface SignedInRequest {
  user?: { id?: string };
}

/**
 * The user behind a request: your login's `req.user.id`.
 * DEVELOPMENT ONLY: until the app has a login, everyone is "dev-user" outside production. Delete the fallback once
 * your login sets req.user; with NODE_ENV=production it is off, and a request without a user gets nobody.
 */
function currentUser(req: SignedInRequest): string | undefined {
  if (req.user?.id) return req.user.id;
  return process.env.NODE_ENV === 'production' ? undefined : 'dev-user'; // DEVELOPMENT ONLY
}

@Injectable()
export class GitHubKeys {
  private readonly logger = new Logger(GitHubKeys.name);

  constructor(private readonly elicitations: ElicitationService) {}

  /** Asks `userId` for their GitHub API key on a page: returns the page and its status route, and waits for the answer. */
  async ask(userId: string): Promise<{ page: string; status: string }> {
    const { elicitationId, url } = await this.elicitations.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub API key so the assistant can open pull requests for you.',
      userId, // the verified user the elicitation is for: only their browser may answer it
      type: 'api-key-github', // what the answer is for
    });
    void this.keep(elicitationId, userId);
    return { page: url, status: new URL('status', url).href };
  }

  /** Waits for the answer (completed, declined, cancelled or expired) and keeps the key. */
  private async keep(elicitationId: string, userId: string): Promise<void> {
    try {
      const outcome = await this.elicitations.waitForCompletion<{ apiKey: string }>(elicitationId);
      if (outcome.status === 'completed')
        this.logger.log(`${userId} gave a GitHub key`); // store outcome.data.apiKey, never log it
      else this.logger.log(`${userId} gave no key: ${outcome.status}`); // declined, cancelled or expired
    } catch (error) {
      this.logger.warn(`Stopped waiting for ${elicitationId}: ${String(error)}`);
    }
  }
}

@Controller('github-key')
export class GitHubKeysController {
  constructor(private readonly keys: GitHubKeys) {}

  /** GET /github-key: asks the current user, and answers where to go. */
  @Get()
  ask(@Req() req: SignedInRequest): Promise<{ page: string; status: string }> {
    const user = currentUser(req);
    if (!user) throw new UnauthorizedException('Sign in first');
    return this.keys.ask(user);
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      // The public origin browsers use: PUBLIC_URL behind a proxy, else this app on its port.
      baseUrl: process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`,
      // Who is at the browser that opened a page: it must be the user the elicitation is for.
      resolvePageUser: (req: SignedInRequest) => currentUser(req),
    }),
  ],
  controllers: [GitHubKeysController],
  providers: [GitHubKeys],
})
export class GitHubKeysModule {}
