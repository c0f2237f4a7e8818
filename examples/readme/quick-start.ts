import { Injectable, Module } from '@nestjs/common';
import { ElicitationModule, ElicitationService } from 'nestjs-mcp-elicitation';

@Injectable()
export class GitHubKeys {
  constructor(private readonly elicitations: ElicitationService) {}

  /** Asks the user for their GitHub API key on a page and resolves it once they submitted it. */
  async ask(userId: string, sendUserTo: (url: string) => void): Promise<string | undefined> {
    const { elicitationId, url } = await this.elicitations.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub API key so the assistant can open pull requests for you.',
      userId, // the verified user the elicitation is for
      type: 'api-key-github', // what the answer is for
    });
    sendUserTo(url); // 'http://localhost:3000/elicit/<uuid>/api-key'
    const outcome = await this.elicitations.waitForCompletion<{ apiKey: string }>(elicitationId);
    return outcome.status === 'completed' ? outcome.data.apiKey : undefined; // or declined, cancelled, expired
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.PUBLIC_URL ?? 'http://localhost:3000', // the public origin browsers use
      resolvePageUser: (req) => req.user?.id, // your browser session's user
    }),
  ],
  providers: [GitHubKeys],
})
export class AppModule {}
