import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { UrlRequiredErrorClass } from './sdk.types.js';

/** Which SDK line serves a call: 1.x (`@modelcontextprotocol/sdk`) or 2.x (`@modelcontextprotocol/server`). */
export type SdkLine = '1.x' | '2.x';

/** A JSON-RPC error class of an SDK copy: 1.x `McpError`, 2.x `ProtocolError`. */
export type ProtocolErrorClass = new (code: number, message: string, data?: unknown) => Error;

/**
 * The SDK classes the library hands to SDK objects, all from ONE loaded copy of one SDK line. An SDK recognises
 * only its own copy's classes (SDK 1.x's `McpServer` lets -32042 through only for `instanceof McpError` of its own
 * `types.js`), and an app may hold two copies of the same package: the CommonJS build its `require` loaded and the
 * ES module build an `import` loaded. So the classes are taken from the copy that made the server in hand.
 */
export interface SdkCopy {
  readonly line: SdkLine;
  /** The low-level `Server` class: a server of this copy is `instanceof` it. */
  readonly Server: abstract new (...args: never[]) => object;
  /** -32042 (SDK 1.x's without the prefix its client adds again). */
  readonly UrlElicitationRequiredError: UrlRequiredErrorClass;
  /** Any other JSON-RPC error. */
  readonly ProtocolError: ProtocolErrorClass;
}

/** The entries of each line: where its `Server` and its errors live (package subpaths, the same in both builds). */
const ENTRIES: Record<SdkLine, { pkg: string; server: string; errors: string }> = {
  '1.x': {
    pkg: '@modelcontextprotocol/sdk',
    server: '@modelcontextprotocol/sdk/server/index.js',
    errors: '@modelcontextprotocol/sdk/types.js',
  },
  '2.x': { pkg: '@modelcontextprotocol/server', server: '@modelcontextprotocol/server', errors: '@modelcontextprotocol/server' },
};

/** A module namespace or CommonJS exports object, read by name. */
type Exports = Record<string, unknown>;

/** One line's copy from its loaded entry modules, or `undefined` when they lack a class. */
export function sdkCopyOf(line: SdkLine, server: Exports | undefined, errors: Exports | undefined): SdkCopy | undefined {
  const Server = server?.Server;
  const UrlError = errors?.UrlElicitationRequiredError;
  const ProtocolError = line === '1.x' ? errors?.McpError : errors?.ProtocolError;
  if (typeof Server !== 'function' || typeof UrlError !== 'function' || typeof ProtocolError !== 'function') return undefined;
  const urlError = UrlError as UrlRequiredErrorClass;
  return {
    line,
    Server: Server as SdkCopy['Server'],
    UrlElicitationRequiredError: line === '1.x' ? withPlainMessage(urlError) : urlError,
    ProtocolError: ProtocolError as ProtocolErrorClass,
  };
}

/** Each line's copy as this module's own `import()` loads it (the ES module build under Node; Jest's registry under Jest). */
export async function importedSdkCopies(): Promise<SdkCopy[]> {
  const [sdk1Server, sdk1Types, sdk2] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js').catch(() => undefined),
    import('@modelcontextprotocol/sdk/types.js').catch(() => undefined),
    import('@modelcontextprotocol/server').catch(() => undefined),
  ]);
  return [
    sdkCopyOf('1.x', sdk1Server as Exports | undefined, sdk1Types as Exports | undefined),
    sdkCopyOf('2.x', sdk2 as Exports | undefined, sdk2 as Exports | undefined),
  ].filter((copy): copy is SdkCopy => copy !== undefined);
}

/** The folder of each SDK package a loaded CommonJS module lives in (`…/node_modules/@modelcontextprotocol/sdk`). */
const PACKAGE_DIR = /^(.*[\\/]node_modules[\\/]@modelcontextprotocol[\\/](sdk|server))[\\/]/;

/**
 * The CommonJS copies of the SDK lines that this process has already `require`d, wherever they are installed
 * (the app's, a dependency's nested copy such as MCP-Nest's): found in Node's module cache and read from there, so
 * nothing new is loaded. Each package is asked for its own entries by name (a package resolves its own name
 * through its exports map), so the `Server` and the errors come from the same copy.
 */
export function requiredSdkCopies(cache: Record<string, unknown> = nodeRequireCache()): SdkCopy[] {
  const dirs = new Map<string, SdkLine>();
  for (const file of Object.keys(cache)) {
    const match = PACKAGE_DIR.exec(file);
    if (match && !dirs.has(match[1])) dirs.set(match[1], match[2] === 'sdk' ? '1.x' : '2.x');
  }
  const copies: SdkCopy[] = [];
  for (const [dir, line] of dirs) {
    try {
      const requireHere = createRequire(join(dir, 'package.json'));
      const { server, errors } = ENTRIES[line];
      const copy = sdkCopyOf(line, requireHere(server) as Exports, requireHere(errors) as Exports);
      if (copy) copies.push(copy);
    } catch {
      // a package without the entries (another major version): not a copy the binding can use
    }
  }
  return copies;
}

/** Node's CommonJS module cache (shared by every `require` of the process). */
function nodeRequireCache(): Record<string, unknown> {
  return createRequire(import.meta.url).cache;
}

/** The package name of a line, for messages. */
export function sdkPackageOf(line: SdkLine): string {
  return ENTRIES[line].pkg;
}

/**
 * SDK 1.x's -32042 with its plain text as `message`. SDK 1.x's `McpError` constructor writes `MCP error <code>: `
 * into `message`, its server sends `message` as the JSON-RPC error's message as it is, and its client prefixes it
 * again on receipt: "MCP error -32042: MCP error -32042: ..." (modelcontextprotocol/typescript-sdk#2786). The
 * subclass is still the SDK copy's class to its `McpServer` (which passes only its own -32042 through), and SDK
 * 2.x's `ProtocolError` needs nothing: it adds no prefix.
 */
function withPlainMessage(sdkClass: UrlRequiredErrorClass): UrlRequiredErrorClass {
  // The SDK's own class name, which the MCP-Nest adapter recognises.
  return class UrlElicitationRequiredError extends sdkClass {
    constructor(...args: ConstructorParameters<UrlRequiredErrorClass>) {
      super(...args);
      const prefix = `MCP error ${String((this as { code?: unknown }).code)}: `;
      if (this.message.startsWith(prefix)) this.message = this.message.slice(prefix.length);
    }
  };
}
