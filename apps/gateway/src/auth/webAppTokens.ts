import { createHmac, randomUUID } from "node:crypto";
import { WEB_APP_USER_ID_PATTERN, type WebAppWithKeys } from "@axiom-lattice/protocols";
import { SignJWT, errors, jwtVerify } from "jose";
import { HttpError } from "../http/errors";

// An end user's web-app token: a JWT (HS256) whose issuer is the web app and whose subject is the
// user. In `signed` mode the host's backend signs it with the web app's secret; in `anonymous` mode
// the gateway signs it for a visitor it names itself (`POST /web-apps/{id}/visitors`). The gateway
// signs operators' preview tokens with the web app's preview key, which it never shows, so a host
// cannot mint one. Operator tokens are signed with none of these and never verify here, and a web-app
// token has no tenant_id claim, so it never verifies as an operator's.

/** How a runtime request's token was signed: by the host (`user`), by the gateway for a visitor or an operator's preview. */
export type WebAppTokenKind = "user" | "visitor" | "preview";

/** Who a runtime request acts for: an end user of one web app, or an operator previewing it. */
export interface WebAppUser {
  userId: string;
  kind: WebAppTokenKind;
}

const encode = (secret: string) => new TextEncoder().encode(secret);

/**
 * The key of a web app's visitor tokens, derived from its preview key: no second secret to store,
 * seal or rotate, and still distinct, so a visitor token never passes for a preview token (nor the
 * reverse) and nobody outside the gateway can sign one.
 */
const visitorKey = (previewSecret: string) => createHmac("sha256", previewSecret).update("axiom-web-app-visitor").digest("base64url");

/**
 * The keys a token of this web app may be signed with now, the preview key last. The modes exclude
 * each other: in `anonymous` mode the host's secret signs nothing (a host could otherwise sign a
 * visitor's id and read their threads), and in `signed` mode a visitor token opens nothing, so that
 * switching a web app to `signed` closes it to every visitor at once.
 */
function candidateKeys({ webApp, keys }: WebAppWithKeys, now: Date): { secret: string; kind: WebAppTokenKind }[] {
  const candidates: { secret: string; kind: WebAppTokenKind }[] = [];
  if (webApp.identityMode === "anonymous") {
    candidates.push({ secret: visitorKey(keys.previewSecret), kind: "visitor" });
  } else {
    if (keys.secret !== undefined) candidates.push({ secret: keys.secret, kind: "user" });
    if (keys.previous !== undefined && keys.previousValidUntil !== undefined && keys.previousValidUntil > now) {
      candidates.push({ secret: keys.previous, kind: "user" });
    }
  }
  candidates.push({ secret: keys.previewSecret, kind: "preview" });
  return candidates;
}

/** Verifies `token` for `app`: its user, or a 401 (`TOKEN_EXPIRED` for an expired one). */
export async function verifyWebAppToken(token: string, app: WebAppWithKeys, now = new Date()): Promise<WebAppUser> {
  for (const { secret, kind } of candidateKeys(app, now)) {
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
    return { userId: payload.sub, kind };
  }
  const signer = app.webApp.identityMode === "anonymous" ? "the gateway for a visitor (anonymous mode: the host's secret signs nothing)" : "its current (or grace-period) secret";
  throw new HttpError("UNAUTHENTICATED", `The web-app token is not signed for web app ${app.webApp.id} by ${signer}`);
}

async function sign(webAppId: string, key: string, userId: string, expiresInS: number): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date((Math.floor(Date.now() / 1000) + expiresInS) * 1000);
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(webAppId)
    .setSubject(userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(encode(key));
  return { token, expiresAt };
}

/** A preview token an operator tries a web app with (a draft too): signed with its preview key. */
export function issuePreviewToken(webAppId: string, previewSecret: string, userId: string, expiresInS: number): Promise<{ token: string; expiresAt: Date }> {
  return sign(webAppId, previewSecret, userId, expiresInS);
}

/** Visitor ids are the gateway's own: random, so nobody guesses another visitor's, and prefixed, so an operator tells them apart. */
export const newVisitorId = () => `visitor:${randomUUID()}`;

/** A visitor token of an `anonymous` web app: `userId` (a {@link newVisitorId}, or the visitor's own when renewed) for `expiresInS`. */
export function issueVisitorToken({ webApp, keys }: WebAppWithKeys, userId: string, expiresInS: number): Promise<{ token: string; expiresAt: Date }> {
  return sign(webApp.id, visitorKey(keys.previewSecret), userId, expiresInS);
}
