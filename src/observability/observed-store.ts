import type { Provider } from '@nestjs/common';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { ElicitationTelemetry } from './elicitation-telemetry.js';

/**
 * Injection token of the store as the module's own services use it: the configured `ElicitationStore`, with every
 * failed operation counted in `elicitation.store.errors {operation}`. The `ElicitationStore` token itself stays the
 * object the app configured (`app.get(ElicitationStore)` is the app's store).
 * @internal
 */
export const ELICITATION_OBSERVED_STORE = Symbol('ElicitationObservedStore');

/** The hooks Nest calls on a provider that has them. */
const LIFECYCLE_HOOKS = new Set([
  'onModuleInit',
  'onApplicationBootstrap',
  'onModuleDestroy',
  'beforeApplicationShutdown',
  'onApplicationShutdown',
]);

/**
 * `store` seen through a proxy that counts each operation that throws or rejects, by the method's name. Methods run
 * on the store itself (its private state, a `jest.spyOn` on it, members added later all work as before); what the
 * operation resolves or throws passes through unchanged (a promise is the store's own).
 */
export function observedStore(store: ElicitationStore, telemetry: Pick<ElicitationTelemetry, 'storeError'>): ElicitationStore {
  const wrapped = new Map<PropertyKey, { original: unknown; wrapper: unknown }>();
  return new Proxy(store, {
    get(target, property) {
      // Nest calls the lifecycle hooks of every provider: the store's own run once, on the store's provider.
      if (typeof property === 'string' && LIFECYCLE_HOOKS.has(property)) return undefined;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      const known = wrapped.get(property);
      if (known?.original === value) return known.wrapper;
      const operation = String(property);
      const method = value as (...args: unknown[]) => unknown;
      const wrapper = (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = method.apply(target, args);
        } catch (error) {
          telemetry.storeError(operation);
          throw error;
        }
        // Counted on a branch of its own: the caller awaits the store's promise itself, not one more behind it.
        if (result instanceof Promise) result.then(undefined, () => telemetry.storeError(operation));
        return result;
      };
      wrapped.set(property, { original: value, wrapper });
      return wrapper;
    },
  });
}

/** The provider of `ELICITATION_OBSERVED_STORE`. */
export const observedStoreProvider: Provider = {
  provide: ELICITATION_OBSERVED_STORE,
  inject: [ElicitationStore, ElicitationTelemetry],
  useFactory: (store: ElicitationStore, telemetry: ElicitationTelemetry) => observedStore(store, telemetry),
};
