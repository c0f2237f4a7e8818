// The inbox's list in an app's own UI: a route of yours that reads a user's open questions from the service.
import { Controller, Get, Query, Req } from '@nestjs/common';
import { ElicitationService, type OpenQuestionsPage } from 'nestjs-mcp-elicitation';

/** Your browser session, as your login middleware leaves it on the request. */
interface SignedInRequest {
  user: { id: string };
}

@Controller('my/questions')
export class MyQuestionsController {
  constructor(private readonly elicitation: ElicitationService) {}

  /** `GET /my/questions?after=<next>`: ten at a time, newest first; `next` reads the page after. */
  @Get()
  list(@Req() req: SignedInRequest, @Query('after') after?: string): Promise<OpenQuestionsPage> {
    return this.elicitation.listOpen(req.user.id, { limit: 10, after });
  }
}
