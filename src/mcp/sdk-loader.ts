import { createRequire } from 'node:module';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { UrlRequiredErrorClass } from './sdk.types.js';

type Sdk1Types = typeof import('@modelcontextprotocol/sdk/types.js');
type Sdk2Server = typeof import('@modelcontextprotocol/server');

/** Which SDK line serves a call: 1.x (`@modelcontextprotocol/sdk`) or 2.x (`@modelcontextprotocol/server`). */
export type SdkLine = '1.x' | '2.x';

const MISSING: Record<SdkLine, string> = {
  '1.x': 'nestjs-mcp-elicitation: install @modelcontextprotocol/sdk (1.23 or later) to use the MCP binding with SDK 1.x.',
  '2.x': 'nestjs-mcp-elicitation: install @modelcontextprotocol/server (2.x) to use the MCP binding with SDK 2.x.',
};

/** The part of zod (v4, the one the SDKs' `registerTool` reads) the binding builds its own tool schema with. */
export interface ZodLike {
  object(shape: Record<string, unknown>): unknown;
  string(): { describe(text: string): unknown };
  enum(values: readonly string[]): { describe(text: string): unknown };
  record(key: unknown, value: unknown): { optional(): { describe(text: string): unknown } };
  unknown(): unknown;
}

/**
 * The one place the optional SDK packages are loaded (lazily, at module init): the binding needs each
 * line's own `UrlElicitationRequiredError` class, because `McpServer` recognises only its own -32042, and
 * the zod the SDKs themselves depend on, for the schema of the tool it registers (`submit-elicitation-answer`).
 */
@Injectable()
export class McpSdkLoader implements OnModuleInit {
  private readonly errors = new Map<SdkLine, UrlRequiredErrorClass>();
  private zodModule: ZodLike | undefined;

  async onModuleInit(): Promise<void> {
    const [sdk1, sdk2] = await Promise.all([
      import('@modelcontextprotocol/sdk/types.js').catch((): Sdk1Types | undefined => undefined),
      import('@modelcontextprotocol/server').catch((): Sdk2Server | undefined => undefined),
    ]);
    if (sdk1) this.errors.set('1.x', withPlainMessage(sdk1.UrlElicitationRequiredError));
    if (sdk2) this.errors.set('2.x', sdk2.UrlElicitationRequiredError);
    this.zodModule = sdkZod('@modelcontextprotocol/server') ?? sdkZod('@modelcontextprotocol/sdk/types.js');
  }

  /** zod v4 as the installed SDK resolves it, or `undefined` when there is none. */
  zod(): ZodLike | undefined {
    return this.zodModule;
  }

  /** The -32042 error class of an SDK line, or one that explains how to install that line. */
  urlRequiredError(line: SdkLine): UrlRequiredErrorClass {
    const found = this.errors.get(line);
    if (found) return found;
    return class MissingSdkError extends Error {
      constructor() {
        super(MISSING[line]);
      }
    };
  }
}

/**
 * SDK 1.x's -32042 with its plain text as `message`. SDK 1.x's `McpError` constructor writes `MCP error <code>: `
 * into `message`, its server sends `message` as the JSON-RPC error's message as it is, and its client prefixes it
 * again on receipt: "MCP error -32042: MCP error -32042: ..." (modelcontextprotocol/typescript-sdk#2786). The
 * subclass is still the SDK's class to `McpServer` (which passes only its own -32042 through), and SDK 2.x's
 * `ProtocolError` needs nothing: it adds no prefix.
 */
function withPlainMessage(sdkClass: UrlRequiredErrorClass): UrlRequiredErrorClass {
  // The SDK's own class name, which `toMcpNestError` recognises.
  return class UrlElicitationRequiredError extends sdkClass {
    constructor(...args: ConstructorParameters<UrlRequiredErrorClass>) {
      super(...args);
      const prefix = `MCP error ${String((this as { code?: unknown }).code)}: `;
      if (this.message.startsWith(prefix)) this.message = this.message.slice(prefix.length);
    }
  };
}

/** The zod (v4) that an SDK package itself resolves, if it resolves one. */
function sdkZod(sdkEntry: string): ZodLike | undefined {
  try {
    const fromHere = createRequire(import.meta.url);
    const zod = createRequire(fromHere.resolve(sdkEntry))('zod') as { z?: ZodLike & { toJSONSchema?: unknown } };
    return typeof zod.z?.toJSONSchema === 'function' ? zod.z : undefined;
  } catch {
    return undefined;
  }
}
