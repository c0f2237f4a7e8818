import { Controller, Module, Post } from '@nestjs/common';
import { ElicitationModule, ElicitationService } from 'nestjs-mcp-elicitation';

// What a Nest user adds to a `nest new` app: the module, and a route that asks a user for an API key.
@Controller('consent')
export class ConsentController {
  constructor(private readonly elicitations: ElicitationService) {}

  @Post('api-key')
  askForApiKey() {
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
