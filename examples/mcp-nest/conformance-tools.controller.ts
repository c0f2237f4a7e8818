/**
 * The conformance suite's test tools (and its one prompt) on the MCP-Nest demo, registered only with
 * `MCP_CONFORMANCE=1` (`npm run conformance`): `@Tool()` methods with `@Elicitation()` whose bodies are the very
 * ones `examples/demo/conformance-tools.ts` registers on the SDK demo. Those bodies are collected by running its
 * register functions against a recorder standing in for the SDK server and for `McpElicitation` (only
 * `sealRequestState`, used by the sampling and roots tools at call time, reaches the real one).
 *
 * The prompt (`input-required-result-non-tool-request`) runs through `McpElicitation.runCall` by hand:
 * `McpNestElicitationModule` wraps `@Tool()` calls only.
 */
import { createRequire } from 'node:module';
import { Ctx, Payload, RpcException } from '@nestjs/microservices';
import { McpController, Prompt, Tool, type McpContext } from '@rekog/mcp-nest';
import { z } from 'zod';
import { McpElicitation, RequestStateError, type ElicitingToolHandler, type ToolElicitation } from '../../src/index.js';
import { Elicitation } from '../../src/mcp-nest/index.js';
import { registerConformanceTools, registerInputRequiredConformanceTools } from '../demo/conformance-tools.js';

/** An SDK tool callback without an input schema (`test_logging_tool`): `(ctx)`. */
type SdkCallback = (ctx: unknown) => unknown;

/** The tool and prompt bodies of `examples/demo/conformance-tools.ts`, by name. */
interface ConformanceBodies {
  /** Bodies written for `McpElicitation` (tools and the prompt): `(args, elicitation, sdkContext)`. */
  eliciting: Map<string, ElicitingToolHandler<unknown, unknown>>;
  /** Plain SDK callbacks. */
  sdk: Map<string, SdkCallback>;
}

/** Runs the register functions of the SDK demo's conformance tools against recorders and keeps the bodies. */
function conformanceBodies(elicitation: McpElicitation): ConformanceBodies {
  const bodies: ConformanceBodies = { eliciting: new Map(), sdk: new Map() };
  const wrapped = new WeakMap<object, ElicitingToolHandler<unknown, unknown>>();
  const server = {
    registerTool: (name: string, _config: unknown, callback: SdkCallback) => void bodies.sdk.set(name, callback),
    registerPrompt: (name: string, _config: unknown, callback: object) => {
      const body = wrapped.get(callback);
      if (!body) throw new Error(`conformance prompt ${name} is not written for McpElicitation`);
      bodies.eliciting.set(name, body);
    },
  };
  const recorder = {
    registerTool: (_server: unknown, name: string, _config: unknown, body: ElicitingToolHandler<unknown, unknown>) =>
      void bodies.eliciting.set(name, body),
    tool: (_server: unknown, _name: string, body: ElicitingToolHandler<unknown, unknown>) => {
      const marker = () => undefined;
      wrapped.set(marker, body);
      return marker;
    },
    sealRequestState: (...args: Parameters<McpElicitation['sealRequestState']>) => elicitation.sealRequestState(...args),
  };
  // The recorders have the members the register functions use, and nothing else.
  registerConformanceTools(server as never, recorder as unknown as McpElicitation);
  registerInputRequiredConformanceTools(server as never, recorder as unknown as McpElicitation);
  return bodies;
}

/** MCP-Nest's own copy of the SDK: the only `ProtocolError` it rethrows as a JSON-RPC error. */
const mcpNestSdk = createRequire(createRequire(import.meta.url).resolve('@rekog/mcp-nest'))('@modelcontextprotocol/server') as {
  ProtocolError: new (code: number, message: string, data?: unknown) => Error;
};

const D = 'Conformance: see examples/demo/conformance-tools.ts.';
const PROMPT = 'test_input_required_result_prompt';

/** The suite's tools as `@Tool()` methods, each running the SDK demo's body with the call's `ToolElicitation`. */
@McpController()
export class ConformanceToolsController {
  private readonly bodies: ConformanceBodies;

  constructor(private readonly elicitation: McpElicitation) {
    this.bodies = conformanceBodies(elicitation);
  }

  private run(name: string, args: unknown, elicitation: ToolElicitation, ctx: McpContext): unknown {
    const body = this.bodies.eliciting.get(name);
    if (!body) throw new Error(`no conformance body ${name}`);
    return body(args, elicitation, ctx.getArgByIndex(4));
  }

  // 2025-11-25 and 2026-07-28: tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums.
  @Tool({
    name: 'test_elicitation',
    description: D,
    parameters: z.object({ message: z.string().describe('The message to show the user') }),
  })
  testElicitation(@Payload() args: { message: string }, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_elicitation', args, el, ctx);
  }

  @Tool({ name: 'test_elicitation_sep1034_defaults', description: D })
  sep1034(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_elicitation_sep1034_defaults', args, el, ctx);
  }

  @Tool({ name: 'test_elicitation_sep1330_enums', description: D })
  sep1330(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_elicitation_sep1330_enums', args, el, ctx);
  }

  // 2026-07-28: the input-required-result-* scenarios and server-stateless.
  @Tool({ name: 'test_input_required_result_elicitation', description: D })
  basic(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_elicitation', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_sampling', description: D })
  sampling(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_sampling', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_list_roots', description: D })
  listRoots(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_list_roots', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_request_state', description: D })
  requestState(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_request_state', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_multiple_inputs', description: D })
  multipleInputs(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_multiple_inputs', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_multi_round', description: D })
  multiRound(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_multi_round', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_tampered_state', description: D })
  tamperedState(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_tampered_state', args, el, ctx);
  }

  @Tool({ name: 'test_input_required_result_capabilities', description: D })
  capabilities(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_input_required_result_capabilities', args, el, ctx);
  }

  @Tool({ name: 'test_missing_capability', description: D })
  missingCapability(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_missing_capability', args, el, ctx);
  }

  @Tool({ name: 'test_streaming_elicitation', description: D })
  streamingElicitation(@Payload() args: unknown, @Elicitation() el: ToolElicitation, @Ctx() ctx: McpContext) {
    return this.run('test_streaming_elicitation', args, el, ctx);
  }

  @Tool({ name: 'test_logging_tool', description: D })
  logging(@Ctx() ctx: McpContext) {
    return this.bodies.sdk.get('test_logging_tool')!(ctx.getArgByIndex(4));
  }

  /** The adapter wraps `@Tool()` calls only: a prompt runs its body through `runCall` itself. */
  @Prompt({ name: PROMPT, description: D })
  async prompt(@Payload() args: unknown, @Ctx() ctx: McpContext) {
    const body = this.bodies.eliciting.get(PROMPT)!;
    const sdkContext: unknown = ctx.getArgByIndex(4);
    try {
      // The suite sends no identity: the call's user is left to resolveMcpUser (none).
      return await this.elicitation.runCall(ctx.mcpServer, PROMPT, args, sdkContext, (el) => body(args, el, sdkContext));
    } catch (error) {
      // As the adapter does for tools: a refused requestState is a JSON-RPC error of MCP-Nest's own SDK copy.
      if (error instanceof RequestStateError) throw new RpcException(new mcpNestSdk.ProtocolError(-32602, error.message));
      throw error;
    }
  }
}
