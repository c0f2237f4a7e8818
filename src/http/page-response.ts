import { randomBytes } from 'node:crypto';

/** A fresh nonce for the page's inline `<style>`. */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Headers every page carries: HTML, never cached, not frameable, no referrer, and a Content-Security-
 * Policy that allows only the nonce'd inline style, same-origin form posts and https/same-origin images.
 * Works on Express and Fastify responses alike (both have `header()`).
 */
export function setPageHeaders(res: { header(name: string, value: string): unknown }, nonce: string): void {
  res.header('Content-Type', 'text/html; charset=utf-8');
  res.header('Cache-Control', 'no-store');
  res.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self' https: data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.header('X-Frame-Options', 'DENY');
  res.header('Referrer-Policy', 'no-referrer');
  res.header('X-Content-Type-Options', 'nosniff');
}
