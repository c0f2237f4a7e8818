import type { ModulesContainer } from '@nestjs/core';
import type { NestInterceptor } from '@nestjs/common';
import { MCP_NEST_TOOL_METADATA_KEY } from './mcp-nest.types.js';

/** Where `@UseInterceptors()` keeps a class's interceptors (Nest's `INTERCEPTORS_METADATA`, the same in 11 and 12). */
const INTERCEPTORS_METADATA = '__interceptors__';

/**
 * Puts the adapter's interceptor first on every controller class that has MCP-Nest `@Tool()` methods. Done while
 * the app's instances are created (before `connectMicroservice` builds MCP-Nest's handlers), because a hybrid
 * app's microservice does not see the app's global interceptors unless it was connected with
 * `inheritAppConfig: true`: this way the adapter works either way, and never wraps a call twice.
 * Returns the names of the classes wired (for the start-up log).
 */
export function wireToolControllers(modules: ModulesContainer, interceptor: NestInterceptor): string[] {
  const wired: string[] = [];
  for (const module of modules.values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (abstract new (...args: never[]) => unknown) | null | undefined;
      if (typeof type !== 'function' || !hasToolMethods(type)) continue;
      const current = (Reflect.getMetadata(INTERCEPTORS_METADATA, type) as unknown[] | undefined) ?? [];
      if (current.includes(interceptor)) continue;
      Reflect.defineMetadata(INTERCEPTORS_METADATA, [interceptor, ...current], type);
      wired.push(type.name);
    }
  }
  return wired;
}

/** Whether a class has a method marked with MCP-Nest's `@Tool()`. */
function hasToolMethods(type: abstract new (...args: never[]) => unknown): boolean {
  const prototype = type.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).some((key) => {
    const method = Object.getOwnPropertyDescriptor(prototype, key)?.value as unknown;
    return typeof method === 'function' && Reflect.getMetadata(MCP_NEST_TOOL_METADATA_KEY, method) !== undefined;
  });
}
