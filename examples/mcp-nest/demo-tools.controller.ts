import { Ctx, Payload } from '@nestjs/microservices';
import { McpController, Tool, type McpContext } from '@rekog/mcp-nest';
import type { z } from 'zod';
import type { ToolElicitation } from '../../src/index.js';
import { Elicitation } from '../../src/mcp-nest/index.js';
import {
  approveDeploy,
  connectService,
  DEMO_TOOLS,
  deleteFile,
  dropTable,
  transferFunds,
  type ToolResult,
} from '../demo/demo-tools.service.js';

/** The body of a demo tool by name: the very functions the SDK demo registers (`examples/demo`). */
function body(name: string) {
  const tool = DEMO_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`no demo tool ${name}`);
  return { description: tool.description, run: tool.run as (args: unknown, el: ToolElicitation, ctx: unknown) => Promise<ToolResult> };
}

const connect = body('connect-service');
const approve = body('approve-deploy');
const remove = body('delete-file');
const profile = body('configure-profile');
const release = body('plan-release');
const drop = body('drop-table');
const transfer = body('transfer-funds');

/**
 * The demo's tools as MCP-Nest `@Tool()` methods: `@Elicitation()` hands each its `ToolElicitation`, the same
 * on both protocol eras, with the same outputs as the SDK demo.
 */
@McpController()
export class DemoToolsController {
  @Tool({ name: 'connect-service', description: connect.description, parameters: connectService })
  connectService(@Payload() args: z.infer<typeof connectService>, @Elicitation() elicitation: ToolElicitation, @Ctx() ctx: McpContext) {
    return connect.run(args, elicitation, ctx);
  }

  @Tool({ name: 'approve-deploy', description: approve.description, parameters: approveDeploy })
  approveDeploy(@Payload() args: z.infer<typeof approveDeploy>, @Elicitation() elicitation: ToolElicitation, @Ctx() ctx: McpContext) {
    return approve.run(args, elicitation, ctx);
  }

  @Tool({ name: 'delete-file', description: remove.description, parameters: deleteFile })
  deleteFile(@Payload() args: z.infer<typeof deleteFile>, @Elicitation() elicitation: ToolElicitation, @Ctx() ctx: McpContext) {
    return remove.run(args, elicitation, ctx);
  }

  /** A task for clients with the MCP Tasks extension (a form, then a page), a plain call for the others. */
  @Tool({ name: 'plan-release', description: release.description, parameters: approveDeploy })
  planRelease(
    @Payload() args: z.infer<typeof approveDeploy>,
    @Elicitation({ execution: { taskSupport: 'optional' } }) elicitation: ToolElicitation,
    @Ctx() ctx: unknown,
  ) {
    return release.run(args, elicitation, ctx);
  }

  /** Two approvals of the demo's three users, never the requester's (`requestApproval`); a task where the client can. */
  @Tool({ name: 'drop-table', description: drop.description, parameters: dropTable })
  dropTable(
    @Payload() args: z.infer<typeof dropTable>,
    @Elicitation({ execution: { taskSupport: 'optional' } }) elicitation: ToolElicitation,
    @Ctx() ctx: unknown,
  ) {
    return drop.run(args, elicitation, ctx);
  }

  /** One approval of bob or carol, signed with a passkey bound to the recipient and the amount. */
  @Tool({ name: 'transfer-funds', description: transfer.description, parameters: transferFunds })
  transferFunds(
    @Payload() args: z.infer<typeof transferFunds>,
    @Elicitation({ execution: { taskSupport: 'optional' } }) elicitation: ToolElicitation,
    @Ctx() ctx: unknown,
  ) {
    return transfer.run(args, elicitation, ctx);
  }

  @Tool({ name: 'configure-profile', description: profile.description })
  configureProfile(@Elicitation() elicitation: ToolElicitation, @Ctx() ctx: McpContext) {
    return profile.run(undefined, elicitation, ctx);
  }
}
