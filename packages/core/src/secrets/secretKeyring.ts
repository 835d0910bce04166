import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

// Secrets at rest are sealed with AES-256-GCM. A sealed value names the key version that sealed it,
// so keys can rotate: the keyring decrypts with any version it knows and always seals with the
// current (first) one. Format: `enc:<version>:<iv>:<auth tag>:<ciphertext>`, parts base64url.

const ALGORITHM = "aes-256-gcm";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const PREFIX = "enc";
const VERSION_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The version of the fixed development key. It is public (derived from a constant), so it protects
 * nothing: it only keeps a development gateway working without configuration. Every keyring can
 * still read it, so `keys:rotate` moves development-sealed secrets under a real key once one is set.
 */
export const DEVELOPMENT_KEY_VERSION = "dev";
const DEVELOPMENT_KEY = createHash("sha256").update("axiom-lattice development encryption key").digest();

/** `LATTICE_ENCRYPTION_KEY` (or a sealed value) is malformed. */
export class SecretKeyringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretKeyringError";
  }
}

/** A sealed value could not be opened: unknown key version, wrong key, or tampered with. */
export class SecretDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretDecryptionError";
  }
}

/** Versioned AES-256-GCM keys: seals with the current key, opens with any known one. */
export class SecretKeyring {
  private readonly keys: ReadonlyMap<string, Buffer>;

  private constructor(
    readonly currentVersion: string,
    keys: Map<string, Buffer>,
  ) {
    if (!keys.has(DEVELOPMENT_KEY_VERSION)) keys.set(DEVELOPMENT_KEY_VERSION, DEVELOPMENT_KEY);
    this.keys = keys;
  }

  /**
   * Parses `LATTICE_ENCRYPTION_KEY`: comma-separated `<version>:<base64 of 32 bytes>` entries, the
   * first being the current key, e.g. `v2:<key>,v1:<old key>`.
   */
  static parse(spec: string): SecretKeyring {
    const entries = spec.split(",").map((entry) => entry.trim()).filter(Boolean);
    if (entries.length === 0) throw new SecretKeyringError("needs at least one <version>:<base64 key> entry");
    const keys = new Map<string, Buffer>();
    for (const entry of entries) {
      const separator = entry.indexOf(":");
      const version = entry.slice(0, separator);
      if (separator < 0 || !VERSION_PATTERN.test(version)) {
        throw new SecretKeyringError("each entry is <version>:<base64 key>, the version 1-32 characters of A-Z a-z 0-9 _ -");
      }
      if (version === DEVELOPMENT_KEY_VERSION) throw new SecretKeyringError(`the version "${DEVELOPMENT_KEY_VERSION}" is reserved for the development key`);
      if (keys.has(version)) throw new SecretKeyringError(`the version "${version}" appears twice`);
      const key = Buffer.from(entry.slice(separator + 1), "base64");
      if (key.length !== KEY_BYTES) throw new SecretKeyringError(`the key of version "${version}" must be ${KEY_BYTES} bytes, base64-encoded (openssl rand -base64 32)`);
      keys.set(version, key);
    }
    return new SecretKeyring(entries[0].slice(0, entries[0].indexOf(":")), keys);
  }

  /** Every version it opens secrets with, the one it seals with first. */
  get versions(): string[] {
    return [this.currentVersion, ...[...this.keys.keys()].filter((version) => version !== this.currentVersion)];
  }

  /** The fixed, public development key: for development and tests only. */
  static development(): SecretKeyring {
    return new SecretKeyring(DEVELOPMENT_KEY_VERSION, new Map());
  }

  /** Whether `value` has the sealed format (it may still fail to open). */
  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}:`);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.keys.get(this.currentVersion)!, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [PREFIX, this.currentVersion, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(":");
  }

  open(sealed: string): string {
    const parts = sealed.split(":");
    if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretDecryptionError("not a sealed secret");
    const [, version, iv, tag, ciphertext] = parts;
    const key = this.keys.get(version);
    if (!key) throw new SecretDecryptionError(`sealed with key version "${version}", which LATTICE_ENCRYPTION_KEY does not list`);
    try {
      const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretDecryptionError(`cannot open a secret sealed with key version "${version}": wrong key or tampered value`);
    }
  }

  /** The version `sealed` was sealed with, or undefined when it is not a sealed value. */
  static versionOf(sealed: string): string | undefined {
    const parts = sealed.split(":");
    return parts.length === 5 && parts[0] === PREFIX ? parts[1] : undefined;
  }

  /** Whether `sealed` should be re-sealed: plain text, or sealed under an older key version. */
  needsResealing(value: string): boolean {
    return SecretKeyring.versionOf(value) !== this.currentVersion;
  }

  /** Seals plain text; re-seals a value sealed under an older version; leaves current ones alone. */
  reseal(value: string): string {
    if (!this.needsResealing(value)) return value;
    return this.seal(SecretKeyring.isSealed(value) ? this.open(value) : value);
  }
}

/** How the gateway obtained its keyring: `development` means the public key, to warn about. */
export interface KeyringFromEnvironment {
  keyring: SecretKeyring;
  development: boolean;
}

/**
 * The keyring from `LATTICE_ENCRYPTION_KEY`. Unset: the development key, refused in production
 * (`NODE_ENV=production`), where a public key would leave every stored secret readable.
 */
export function keyringFromEnvironment(env: NodeJS.ProcessEnv): KeyringFromEnvironment {
  const spec = env.LATTICE_ENCRYPTION_KEY?.trim();
  if (spec) return { keyring: SecretKeyring.parse(spec), development: false };
  if (env.NODE_ENV === "production") {
    throw new SecretKeyringError("must be set when NODE_ENV=production (e.g. v1:$(openssl rand -base64 32)); the development key is public");
  }
  return { keyring: SecretKeyring.development(), development: true };
}
