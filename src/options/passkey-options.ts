import { Inject } from '@nestjs/common';

/** What `passkeys.canRegister` answers: `true` lets the user add a passkey, `false` refuses (403), a URL sends them there first. */
export type PasskeyRegistrationGate = boolean | string;

/** Passkeys (`presence: 'passkey'` and the passkey page, `/<routePrefix>/passkeys`): every field optional. */
export interface ElicitationPasskeyOptions {
  /** The relying party's id: the domain the passkeys are scoped to (a suffix of `baseUrl`'s host). @default `baseUrl`'s host name */
  rpId?: string;
  /** The name the browser shows when a passkey is made. @default the `title` option */
  rpName?: string;
  /** The origins the browser may sign on (scheme, host and port). @default `baseUrl`'s origin */
  origins?: readonly string[];
  /** The most passkeys one user may keep (removed ones do not count). @default 10 */
  maxPerUser?: number;
  /**
   * Whether the signed-in user may add a passkey now (a stolen session must not add its own): `true`, `false` (the page
   * says to ask an administrator), or a URL to send the browser to first (your login step, e.g. a fresh sign-in),
   * with `returnTo` set to the passkey page. `req` is the host framework's request.
   * @default every signed-in user may add one
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  canRegister?: (user: string, req: any) => PasskeyRegistrationGate | Promise<PasskeyRegistrationGate>;
}

/** The passkey options, checked and defaulted. */
export interface ResolvedPasskeyOptions {
  readonly rpId: string;
  readonly rpName: string;
  readonly origins: readonly string[];
  readonly maxPerUser: number;
  readonly canRegister?: ElicitationPasskeyOptions['canRegister'];
  /** Whether pages know their user (`resolvePageUser`): a passkey is a known user's, so none is asked for without it. */
  readonly identified: boolean;
  /** Whether the app set `passkeys` (the pages' bar then links to the passkey page). */
  readonly listed: boolean;
}

/** Injection token of the passkeys' slice of the options (`ResolvedPasskeyOptions`). */
export const ELICITATION_PASSKEY_OPTIONS = Symbol('ElicitationPasskeyOptions');

/** Injects the passkeys' slice of the options (`ELICITATION_PASSKEY_OPTIONS`). */
export const InjectPasskeyOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_PASSKEY_OPTIONS);
