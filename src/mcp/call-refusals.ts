import { AsyncLocalStorage } from 'node:async_hooks';

/** What a guarded `tools/call` learns of the call it dispatched: the binding's refusal of it, if any. */
interface Dispatch {
  refused?: Error;
}

/** A request handler as both SDK lines keep it: `(request, extra | ctx) => result`. */
type RequestHandler = (request: unknown, extra: unknown) => unknown;

/** The dispatch of the `tools/call` the current code runs for (a guarded server's). */
const dispatches = new AsyncLocalStorage<Dispatch>();
/** Low-level servers whose `tools/call` handler is guarded. */
const guarded = new WeakSet<object>();

/**
 * Lets the binding's refusal of a tool call reach the client as the JSON-RPC error it is. The SDK's `McpServer` (1.x
 * and 2.x) answers every error of a tool callback but -32042 with a tool result (`isError`), which a model reads as
 * the tool's answer. So the `tools/call` handler of each low-level server the binding serves is wrapped once, from
 * the outside: the call runs as before, and when the binding refused it (`refuse`), the wrapper throws the refusal,
 * which the SDK sends as a JSON-RPC error (`code`, `message`, `data`). Both SDK lines keep their handlers in a
 * `_requestHandlers` map by method; a server without one there (another SDK), or with no `tools/call` handler yet,
 * is left as it is (then the refusal is a tool error with the same text). Idempotent; `true` once guarded.
 */
export function guardToolCalls(server: object): boolean {
  if (guarded.has(server)) return true;
  const handlers = (server as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return false;
  const inner: unknown = handlers.get('tools/call');
  if (typeof inner !== 'function') return false;
  const dispatch: RequestHandler = (request, extra) => {
    const seen: Dispatch = {};
    return dispatches.run(seen, async () => {
      const result: unknown = await (inner as RequestHandler)(request, extra);
      if (seen.refused) throw seen.refused;
      return result;
    });
  };
  handlers.set('tools/call', dispatch);
  guarded.add(server);
  return true;
}

/** Refuses the tool call the current code runs for: its guard (if any) answers the client with `error`. Throws `error`. */
export function refuse(error: Error): never {
  const seen = dispatches.getStore();
  if (seen) seen.refused ??= error;
  throw error;
}
