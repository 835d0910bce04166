import { createHash, randomBytes } from "node:crypto";

/** How every API key begins: tells it from a JWT at a glance, and lets secret scanners find leaked ones. */
export const API_KEY_PREFIX = "lat_";

/** `lat_` and 32 random bytes in base64url (43 characters): 256 bits no one guesses. */
const API_KEY_SHAPE = /^lat_[A-Za-z0-9_-]{43}$/;

/** The characters of a key shown to recognise it by: the prefix and 8 of 43 characters leave 208 random bits unknown. */
const SHOWN_CHARACTERS = API_KEY_PREFIX.length + 8;

/** A new key's secret, shown once to its creator. */
export const newApiKeySecret = (): string => API_KEY_PREFIX + randomBytes(32).toString("base64url");

/** Whether `token` is shaped as a key: anything else is refused without a database read. */
export const isApiKeyShaped = (token: string): boolean => API_KEY_SHAPE.test(token);

/**
 * What a key is stored and looked up as. A plain SHA-256 suffices, with no salt and no slow hash: those
 * protect passwords, which are few enough to try one by one, while a key is 256 random bits, which no
 * speed of hashing lets anyone enumerate. Being deterministic, the hash is also what the unique index
 * finds a presented key by, in one probe; how long that probe takes tells a caller about hashes, from
 * which no secret can be worked back, so no constant-time comparison is needed.
 */
export const hashApiKeySecret = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/** The start of the secret that answers show, so an operator can tell which key a program holds. */
export const apiKeyPrefixOf = (secret: string): string => secret.slice(0, SHOWN_CHARACTERS);
