import { BadRequestException, Controller, Get, Header, Query, Res } from '@nestjs/common';
import { DEMO_COOKIE, isDemoUserName } from './demo-identity.js';

/**
 * A path on this site only: starts with one `/`, no scheme, no `//` or `/\` (no open redirect), and printable
 * ASCII only (it becomes a `Location` header: control characters or characters above U+00FF would make Node
 * refuse the header). Anything else is dropped: the sign-in still works, without the way back.
 */
function safeReturnTo(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 2048 && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) ? value : undefined;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * DEMO-ONLY sign-in: `GET /demo/login?user=<name>[&returnTo=/elicit/...]` sets the `demo_user` cookie; without
 * `user` it shows a one-field form (the module's `loginUrl` sends unidentified browsers here).
 */
@Controller('demo')
export class DemoLoginController {
  @Get('login')
  @Header('Cache-Control', 'no-store')
  login(
    @Query('user') user: unknown,
    @Query('returnTo') returnTo: unknown,
    @Res({ passthrough: true }) res: { header(name: string, value: string): unknown; status(code: number): unknown },
  ): string {
    const target = safeReturnTo(returnTo);
    if (user === undefined) {
      // The elicitation pages send an unidentified browser here (loginUrl): ask for a demo name.
      res.header('Content-Type', 'text/html; charset=utf-8');
      return (
        '<!doctype html><meta charset="utf-8"><title>Demo sign-in</title>' +
        '<form method="get"><p>Demo sign-in (no password: the name is the identity).</p>' +
        '<label>User name <input name="user" required pattern="[A-Za-z0-9._@\\-]{1,64}" autofocus></label>' +
        (target ? `<input type="hidden" name="returnTo" value="${escapeHtml(target)}">` : '') +
        '<button>Sign in</button></form>'
      );
    }
    if (!isDemoUserName(user)) {
      throw new BadRequestException('Pass ?user=<name> (letters, digits, ".", "_", "@", "-"; at most 64 characters).');
    }
    res.header('Set-Cookie', `${DEMO_COOKIE}=${encodeURIComponent(user)}; Path=/; HttpOnly; SameSite=Lax`);
    if (target) {
      res.status(303);
      res.header('Location', target);
      return '';
    }
    res.header('Content-Type', 'text/html; charset=utf-8');
    return `<!doctype html><meta charset="utf-8"><title>Demo sign-in</title><p>Signed in as <b>${escapeHtml(user)}</b> (demo only). Now open the elicitation link.</p>`;
  }
}
