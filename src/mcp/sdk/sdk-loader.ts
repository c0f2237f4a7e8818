import { createRequire } from 'node:module';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { importedSdkCopies, requiredSdkCopies, sdkPackageOf, type SdkCopy, type SdkLine } from './sdk-copies.js';
import { lowLevelServer, type SdkServerOrMcpServer } from './sdk.types.js';

export type { SdkCopy, SdkLine } from './sdk-copies.js';

/** The part of zod (v4, the one the SDKs' `registerTool` reads) the binding builds its own tool schema with. */
export interface ZodLike {
  object(shape: Record<string, unknown>): unknown;
  string(): { describe(text: string): unknown };
  enum(values: readonly string[]): { describe(text: string): unknown };
  record(key: unknown, value: unknown): { optional(): { describe(text: string): unknown } };
  unknown(): unknown;
}

/**
 * The one place the optional SDK packages are loaded, and the one place that says which loaded copy of an SDK a
 * server belongs to. The binding hands SDK objects classes they check with `instanceof` (-32042, JSON-RPC errors),
 * and an SDK recognises only its own copy's: a CommonJS app that loads this package's ES module build (`require` of
 * an ES module, Node 20.19+) holds the SDK's CommonJS copy (its own `require`) beside the ES module copy this
 * package's `import` gives. So every class comes from {@link copyFor}: the copy whose `Server` made the server in
 * hand, looked for among the copies `import` gives here (loaded at module init) and the CommonJS copies the process
 * has required (Node's module cache, wherever installed), once per server class.
 */
@Injectable()
export class McpSdkLoader implements OnModuleInit {
  private readonly logger = new Logger('McpElicitation');
  private imported: SdkCopy[] = [];
  /** The copy of each server class seen, found once. */
  private readonly byServerClass = new WeakMap<object, SdkCopy | undefined>();
  private zodModule: ZodLike | undefined;

  async onModuleInit(): Promise<void> {
    this.imported = await importedSdkCopies();
    this.zodModule = sdkZod('@modelcontextprotocol/server') ?? sdkZod('@modelcontextprotocol/sdk/types.js');
  }

  /** zod v4 as the installed SDK resolves it, or `undefined` when there is none. */
  zod(): ZodLike | undefined {
    return this.zodModule;
  }

  /**
   * The SDK copy a server (an `McpServer` or its low-level `Server`) belongs to. A server of no copy found (a
   * bundled SDK, a stand-in in tests) gets this package's own import of the line, with one warning for a real class.
   * Without the line installed, its classes are errors that say how to install it.
   */
  copyFor(server: SdkServerOrMcpServer, line: SdkLine): SdkCopy {
    const low = lowLevelServer(server) as object;
    const key = Object.getPrototypeOf(low) as object | null;
    if (key && this.byServerClass.has(key)) return this.byServerClass.get(key) ?? this.fallback(line);
    const found = this.find(low, line);
    if (key) this.byServerClass.set(key, found);
    if (!found && key && key !== Object.prototype) {
      this.logger.warn(
        `The MCP server's class (${low.constructor?.name ?? 'anonymous'}) is from no copy of ${sdkPackageOf(line)} this ` +
          'process has loaded (a bundled SDK?): -32042 and other JSON-RPC errors may reach the client as tool errors.',
      );
    }
    return found ?? this.fallback(line);
  }

  /** Whether a server (an `McpServer` or its low-level `Server`) is of a loaded copy of the SDK `line`. */
  isOf(server: SdkServerOrMcpServer, line: SdkLine): boolean {
    return this.find(lowLevelServer(server), line) !== undefined;
  }

  private find(low: object, line: SdkLine): SdkCopy | undefined {
    const fits = (copy: SdkCopy) => copy.line === line && low instanceof copy.Server;
    return this.imported.find(fits) ?? requiredSdkCopies().find(fits);
  }

  private fallback(line: SdkLine): SdkCopy {
    return this.imported.find((copy) => copy.line === line) ?? missingCopy(line);
  }
}

/** A copy for a line that is not installed: its errors say how to install it. */
function missingCopy(line: SdkLine): SdkCopy {
  const text =
    `nestjs-mcp-elicitation: install ${sdkPackageOf(line)} ` +
    (line === '1.x' ? '(1.23 or later) to use the MCP binding with SDK 1.x.' : '(2.x) to use the MCP binding with SDK 2.x.');
  class MissingSdkError extends Error {
    constructor() {
      super(text);
    }
  }
  return {
    line,
    Server: MissingSdkError,
    UrlElicitationRequiredError: MissingSdkError,
    ProtocolError: MissingSdkError,
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
