import { WEB_APP_USER_ID_PATTERN, type WebAppWithKeys } from "@axiom-lattice/protocols";
import { SignJWT, errors, jwtVerify } from "jose";
import { HttpError } from "../http/errors";

// An end user's web-app token: a JWT (HS256) whose issuer is the web app and whose subject is the
// user. The host's backend signs it with the web app's secret; the gateway signs operators' preview
// tokens with the web app's preview key, which it never shows, so a host cannot mint one. Operator
// tokens are signed with neither and never verify here, and a web-app token has no tenant_id claim,
// so it never verifies as an operator's.

/** Who a runtime request acts for: an end user of one web app, or an operator previewing it. */
export interface WebAppUser {
  userId: string;
  /** Verified with the preview key: the only kind a draft accepts. */
  preview: boolean;
}

const encode = (secret: string) => new TextEncoder().encode(secret);

/** The keys a token of this web app may be signed with now, the preview key last. */
function candidateKeys({ keys }: WebAppWithKeys, now: Date): { secret: string; preview: boolean }[] {
  const candidates: { secret: string; preview: boolean }[] = [];
  if (keys.secret !== undefined) candidates.push({ secret: keys.secret, preview: false });
  if (keys.previous !== undefined && keys.previousValidUntil !== undefined && keys.previousValidUntil > now) {
    candidates.push({ secret: keys.previous, preview: false });
  }
  candidates.push({ secret: keys.previewSecret, preview: true });
  return candidates;
}

/** Verifies `token` for `app`: its user, or a 401 (`TOKEN_EXPIRED` for an expired one). */
export async function verifyWebAppToken(token: string, app: WebAppWithKeys, now = new Date()): Promise<WebAppUser> {
  for (const { secret, preview } of candidateKeys(app, now)) {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, encode(secret), { algorithms: ["HS256"], issuer: app.webApp.id, requiredClaims: ["exp", "sub"], currentDate: now }));
    } catch (error) {
      // Signed with another key: try the next one. Anything else is this token's fault.
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      if (error instanceof errors.JWTExpired) throw new HttpError("TOKEN_EXPIRED", "The web-app token has expired");
      throw new HttpError("UNAUTHENTICATED", `Invalid web-app token: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof payload.sub !== "string" || !WEB_APP_USER_ID_PATTERN.test(payload.sub)) {
      throw new HttpError("UNAUTHENTICATED", `The web-app token's subject (sub) must match ${WEB_APP_USER_ID_PATTERN.source}`);
    }
    return { userId: payload.sub, preview };
  }
  throw new HttpError("UNAUTHENTICATED", `The web-app token is not signed by web app ${app.webApp.id}'s current (or grace-period) secret`);
}

/** A preview token an operator tries a web app with (a draft too): signed with its preview key. */
export async function issuePreviewToken(webAppId: string, previewSecret: string, userId: string, expiresInS: number): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date((Math.floor(Date.now() / 1000) + expiresInS) * 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(webAppId)
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(encode(previewSecret));
  return { token, expiresAt };
}
