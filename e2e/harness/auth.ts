import { issueToken } from "@axiom-lattice/gateway";

/** Every replica of the suite runs with authentication on, as a deployment beyond localhost must. */
const SECRET = "e2e-suite-secret-of-at-least-32-characters";
export const AUTH_ENV = { AUTH_REQUIRED: "true", AUTH_TOKEN_SECRET: SECRET };

const tokens = new Map<string, Promise<string>>();

/** A bearer token for `tenantId` (admin scope, an hour), issued once per tenant. */
export function tokenFor(tenantId: string): Promise<string> {
  let token = tokens.get(tenantId);
  if (!token) {
    token = issueToken({ secret: SECRET, tenantId, subject: "e2e", scope: "admin", expiresIn: "1h" });
    tokens.set(tenantId, token);
  }
  return token;
}

/** A token that expired a minute ago. */
export const expiredToken = (tenantId: string) => issueToken({ secret: SECRET, tenantId, subject: "e2e", scope: "admin", expiresIn: "-1m" });
