import { Controller, Module, Post } from '@nestjs/common';
import { type CreatedElicitation, ElicitationModule, ElicitationService } from 'nestjs-mcp-elicitation';

// An ES module Nest 12 app: the module, and a route that asks a user for an API key.
@Controller('consent')
export class ConsentController {
  constructor(private readonly elicitations: ElicitationService) {}

  @Post('api-key')
  askForApiKey(): Promise<CreatedElicitation> {
    return this.elicitations.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub API key.',
      userId: 'alice',
    });
  }
}

@Module({
  imports: [
    ElicitationModule.forRoot({
      baseUrl: process.env.BASE_URL ?? 'http://localhost:3000',
      resolvePageUser: () => 'alice',
    }),
  ],
  controllers: [ConsentController],
})
export class ConsentModule {}
