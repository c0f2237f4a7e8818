// Who may add a passkey: a fresh sign-in first, so that a stolen session cannot add its own.
import { ElicitationModule } from 'nestjs-mcp-elicitation';

/** Your browser session, as your login middleware leaves it on the request (`authTime`: when the user last signed in). */
interface SignedInRequest {
  session?: { userId?: string; authTime?: number };
}

export const elicitationModule = ElicitationModule.forRoot({
  baseUrl: 'https://mcp.example.com',
  resolvePageUser: (req: SignedInRequest) => req.session?.userId,
  passkeys: {
    // Signed in within five minutes: yes; otherwise your login step first (it sends the browser back). `false` refuses.
    canRegister: (_user, req: SignedInRequest) => (Date.now() - (req.session?.authTime ?? 0) < 5 * 60_000 ? true : '/login?prompt=login'),
  },
});
