import { createPublicKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRemoteJWKSet, errors, type JWTVerifyOptions, type JWTVerifyResult, jwtVerify } from "jose";
import type { AuthConfig } from "../config";
import { HttpError } from "../http/errors";
import { TENANT_PATTERN } from "../http/tenant";
import { type Principal, ScopeClaimError, widestScope } from "./principal";

/** Checks a bearer token; resolves to its principal or throws an {@link HttpError} (401, or 503). */
export type TokenVerifier = (token: string) => Promise<Principal>;

type SignatureCheck = (token: string, options: JWTVerifyOptions) => Promise<JWTVerifyResult>;

/**
 * Verifies signatures with the configured key, and only with the algorithms that kind of key signs.
 * Pinning them closes the classic confusions: `alg: none`, and an HS256 token "signed" with a public
 * key as its secret.
 */
async function signatureCheck(key: Extract<AuthConfig, { required: true }>["key"]): Promise<SignatureCheck> {
  if ("secret" in key) {
    const secret = new TextEncoder().encode(key.secret);
    return (token, options) => jwtVerify(token, secret, { ...options, algorithms: ["HS256"] });
  }
  if ("jwksUrl" in key) {
    const keySet = createRemoteJWKSet(new URL(key.jwksUrl));
    return (token, options) => jwtVerify(token, keySet, { ...options, algorithms: ["RS256", "ES256"] });
  }
  const publicKey = createPublicKey(await readFile(key.publicKeyFile, "utf8"));
  const algorithms = publicKey.asymmetricKeyType === "ec" ? ["ES256"] : ["RS256"];
  return (token, options) => jwtVerify(token, publicKey, { ...options, algorithms });
}

export async function createTokenVerifier(auth: Extract<AuthConfig, { required: true }>): Promise<TokenVerifier> {
  const verify = await signatureCheck(auth.key);
  return async (token) => {
    let payload;
    try {
      ({ payload } = await verify(token, { issuer: auth.issuer, audience: auth.audience, requiredClaims: auth.allowNoExpiry ? [] : ["exp"] }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new HttpError("TOKEN_EXPIRED", "The bearer token has expired");
      if (error instanceof errors.JWTClaimValidationFailed && error.claim === "exp" && error.reason === "missing") {
        throw new HttpError("UNAUTHENTICATED", "The bearer token never expires (no exp claim); the gateway accepts such tokens only with AUTH_ALLOW_NO_EXPIRY=true");
      }
      if (error instanceof errors.JWKSTimeout) throw new HttpError("NOT_READY", "The token signing keys could not be fetched");
      throw new HttpError("UNAUTHENTICATED", `Invalid bearer token: ${error instanceof Error ? error.message : String(error)}`);
    }
    const tenantId = payload.tenant_id;
    if (typeof tenantId !== "string" || !TENANT_PATTERN.test(tenantId)) {
      throw new HttpError("UNAUTHENTICATED", `The bearer token's tenant_id claim must match ${TENANT_PATTERN.source}`);
    }
    if (typeof payload.sub !== "string" || payload.sub.length === 0) throw new HttpError("UNAUTHENTICATED", "The bearer token has no subject (sub)");
    let scope;
    try {
      scope = widestScope(payload.scope);
    } catch (error) {
      if (error instanceof ScopeClaimError) throw new HttpError("UNAUTHENTICATED", error.message);
      throw error;
    }
    // A token that names no scope may read and write its tenant's data, not administer it.
    return { tenantId, subject: payload.sub, scope: scope ?? "write" };
  };
}
