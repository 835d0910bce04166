import { SignJWT } from "jose";
import type { Scope } from "./principal";

export interface TokenRequest {
  /** The HS256 secret the gateway verifies with (`AUTH_TOKEN_SECRET`). */
  secret: string;
  tenantId: string;
  subject: string;
  scope: Scope;
  /** Lifetime, as jose reads it: "1h", "30m", "7d" … */
  expiresIn: string;
  issuer?: string;
  audience?: string;
}

/** A bearer token the gateway accepts: for development, tests and operators' scripts. */
export async function issueToken({ secret, tenantId, subject, scope, expiresIn, issuer, audience }: TokenRequest): Promise<string> {
  const token = new SignJWT({ tenant_id: tenantId, scope }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject(subject).setIssuedAt().setExpirationTime(expiresIn);
  if (issuer) token.setIssuer(issuer);
  if (audience) token.setAudience(audience);
  return token.sign(new TextEncoder().encode(secret));
}
